/** One node of the payment benchmark, in its own thread (its own event loop), like a node in its own process. */
import { parentPort } from 'node:worker_threads';
import { startTestNode } from '../support/node.js';
const node = await startTestNode();
const creds = node.node.cliCredentials();
parentPort.postMessage({ baseUrl: node.node.baseUrl, keyId: creds.key_id, secret: creds.secret, pubkeyHash: node.node.identity.pubkeyHash });
parentPort.on('message', (msg) => {
    if (msg === 'stop')
        void node.destroy().then(() => process.exit(0));
});
//# sourceMappingURL=payments-worker.js.map