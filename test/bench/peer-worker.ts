/** Runs the receiving node of the peer benchmark in its own thread, so both nodes get a core. */
import { parentPort } from 'node:worker_threads';
import { AS_OPERATORS_RUN, startTestNode } from '../support/node.js';
import { benchPlugin } from './peer-plugin.js';

const node = await startTestNode({ extraBuiltins: [benchPlugin], env: AS_OPERATORS_RUN });
// The sending node is a stranger here (no contact): lift the per-key and per-address peer limits out of the way.
await node.admin.put('/api/v1/system/settings', { p2p_rate_limit_per_minute: 1_000_000_000 });
parentPort!.postMessage({
  baseUrl: node.node.baseUrl,
  pubkeyHash: node.node.identity.pubkeyHash,
  sealingKey: node.node.identity.sealingPublicKey.toString('base64url'),
  addresses: node.node.addresses(),
});
parentPort!.on('message', (msg: string) => {
  if (msg === 'stop') void node.destroy().then(() => process.exit(0));
});
