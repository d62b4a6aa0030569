import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinPlugins } from '../../builtin-plugins/index.js';
import { loadConfig } from '../../kernel/config.js';
import { startNode } from '../../kernel/node.js';
import { SignedClient } from '../../kernel/cli/rest-client.js';
export function tempDataDir() {
    return mkdtempSync(join(tmpdir(), 'wallet-node-test-'));
}
function configFor(dataDir, env = {}) {
    const fullEnv = { NODE_DATA_DIR: dataDir, NODE_PORT: '0', NODE_BIND: '127.0.0.1', NODE_TEST_MODE: 'true', ...env };
    return { config: loadConfig(fullEnv), env: fullEnv };
}
/** Starts a node in this process on a free loopback port with a fresh (or given) data directory. */
export async function startTestNode(options = {}) {
    const dataDir = options.dataDir ?? tempDataDir();
    const clientFor = (n) => {
        const c = n.cliCredentials();
        return new SignedClient({ baseUrl: c.base_url, keyId: c.key_id, secret: c.secret });
    };
    let launched = false;
    const launch = async (env) => {
        const { config, env: fullEnv } = configFor(dataDir, env);
        const started = await startNode(config, {
            builtins: [...builtinPlugins, ...(options.extraBuiltins ?? [])],
            env: fullEnv,
            ...(options.clock ? { clock: options.clock } : {}),
        });
        // Test nodes all live on loopback: let them adopt each other's loopback addresses (off in production), as a
        // stored setting, so that a test can still turn it off, or pin it with NODE_PEER_PRIVATE_ADDRESSES.
        // A restart keeps whatever the test stored since.
        if (!launched && fullEnv.NODE_PEER_PRIVATE_ADDRESSES === undefined) {
            const res = await clientFor(started).request('PUT', '/api/v1/system/settings', { body: { peer_private_addresses_allowed: true } });
            // 503: a test that starts its node with the REST API off; it does not reach peers through stored addresses.
            if (res.status !== 200 && res.status !== 503)
                throw new Error(`test node: could not allow private peer addresses (HTTP ${res.status})`);
        }
        launched = true;
        return started;
    };
    let node = await launch(options.env);
    const handle = {
        node,
        admin: clientFor(node),
        dataDir,
        stop: () => handle.node.stop(),
        restart: async (env) => {
            await handle.node.stop();
            node = await launch(env ?? options.env);
            handle.node = node;
            handle.admin = clientFor(node);
        },
        destroy: async () => {
            await handle.node.stop();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
    return handle;
}
/** A client for another key on the same node. */
export function clientWithKey(node, keyId, secret) {
    return new SignedClient({ baseUrl: node.baseUrl, keyId, secret });
}
//# sourceMappingURL=node.js.map