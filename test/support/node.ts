import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinPlugins } from '../../builtin-plugins/index.js';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { loadConfig, type NodeConfig } from '../../kernel/config.js';
import { startNode, type RunningNode } from '../../kernel/node.js';
import type { MemoryNetwork } from '../../kernel/peers/transport-memory.js';
import { SignedClient } from '../../kernel/cli/rest-client.js';
import type { Clock } from '../../sdk/index.js';

export interface TestNode {
  node: RunningNode;
  /** A client signed with the node's admin key (the one in cli.json). */
  admin: SignedClient;
  dataDir: string;
  /** Stops the node; the data directory stays for a restart. */
  stop(): Promise<void>;
  /** Stops and starts again on the same data directory (a new port), refreshing `node` and `admin`. */
  restart(env?: Record<string, string>): Promise<void>;
  /** Stops the node and deletes its data directory. */
  destroy(): Promise<void>;
}

export interface StartOptions {
  /** Extra environment (NODE_* variables, RESTORE, TRUSTED_PROXIES...). */
  env?: Record<string, string>;
  /** Reuse a data directory (restarts, restores). */
  dataDir?: string;
  /** Builtin plugins loaded beside the shipped ones (test fixtures); kept across restarts. */
  extraBuiltins?: readonly BuiltinPlugin[];
  /** The time of the node's plugins and job schedules (NodeOptions.clock); kept across restarts. */
  clock?: Clock;
  /** An in-memory network its peer messages go through (NodeOptions.network), whose `link` the test decides. */
  network?: MemoryNetwork;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'wallet-node-test-'));
}

function configFor(dataDir: string, env: Record<string, string> = {}): { config: NodeConfig; env: Record<string, string | undefined> } {
  const fullEnv = { NODE_DATA_DIR: dataDir, NODE_PORT: '0', NODE_BIND: '127.0.0.1', NODE_TEST_MODE: 'true', ...env };
  return { config: loadConfig(fullEnv), env: fullEnv };
}

/**
 * The environment a benchmark's node runs with: test mode off, as `npm start` runs a node. Test mode checks every REST
 * answer against its response schema (a contract test on every call), a cost no operator's node pays.
 */
export const AS_OPERATORS_RUN = { NODE_TEST_MODE: 'false' } as const;

/** Starts a node in this process on a free loopback port with a fresh (or given) data directory. */
export async function startTestNode(options: StartOptions = {}): Promise<TestNode> {
  const dataDir = options.dataDir ?? tempDataDir();
  const clientFor = (n: RunningNode): SignedClient => {
    const c = n.cliCredentials();
    return new SignedClient({ baseUrl: c.base_url, keyId: c.key_id, secret: c.secret });
  };
  let launched = false;
  const launch = async (env?: Record<string, string>): Promise<RunningNode> => {
    const { config, env: fullEnv } = configFor(dataDir, env);
    const started = await startNode(config, {
      builtins: [...builtinPlugins, ...(options.extraBuiltins ?? [])],
      env: fullEnv,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.network ? { network: options.network } : {}),
    });
    // Test nodes all live on loopback: let them adopt each other's loopback addresses (off in production), as a
    // stored setting, so that a test can still turn it off, or pin it with NODE_PEER_PRIVATE_ADDRESSES.
    // A restart keeps whatever the test stored since.
    if (!launched && fullEnv.NODE_PEER_PRIVATE_ADDRESSES === undefined) {
      const res = await clientFor(started).request('PUT', '/api/v1/system/settings', { body: { peer_private_addresses_allowed: true } });
      // 503: a test that starts its node with the REST API off; it does not reach peers through stored addresses.
      if (res.status !== 200 && res.status !== 503) throw new Error(`test node: could not allow private peer addresses (HTTP ${res.status})`);
    }
    launched = true;
    return started;
  };
  let node = await launch(options.env);
  const handle: TestNode = {
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
export function clientWithKey(node: RunningNode, keyId: string, secret: string): SignedClient {
  return new SignedClient({ baseUrl: node.baseUrl, keyId, secret });
}
