/**
 * The simulated nodes: each one the real kernel with the shipped builtin plugins, on a data directory of its own,
 * joined to the in-memory network, its identity restored from a mnemonic drawn from the seed. The simulator talks
 * to each through its REST API over the same network, signed with the node's admin key as node-cli signs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { builtinPlugins } from '../../builtin-plugins/index.js';
import { signRequest } from '../../kernel/auth/verifier.js';
import { loadConfig } from '../../kernel/config.js';
import { startNode, type RunningNode } from '../../kernel/node.js';
import type { MemoryNetwork } from '../../kernel/peers/transport-memory.js';
import type { VirtualClock } from './clock.js';
import type { Rng } from './random.js';

export interface Reply {
  status: number;
  body: any;
}

/** Settings every simulated node starts with: peers on http over the memory network, no per-key throttles. */
/** A node's SQLite page cache: a simulated node's database is small, and a thousand of them share the machine. */
const SIM_DATABASE_CACHE_KIB = 256;

const SIM_SETTINGS = {
  peer_private_addresses_allowed: true,
  default_transport_mode: 'http',
  rate_limit_enabled: false,
  p2p_rate_limit_per_minute: 1_000_000_000,
};

export class SimNode {
  node!: RunningNode;
  readonly dataDir: string;
  #nonce = 0;

  private constructor(
    readonly index: number,
    readonly mnemonic: string,
    private readonly network: MemoryNetwork,
    private readonly clock: VirtualClock,
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'wallet-node-sim-'));
  }

  static async start(index: number, rng: Rng, network: MemoryNetwork, clock: VirtualClock, settings: Record<string, unknown> = {}): Promise<SimNode> {
    const node = new SimNode(index, entropyToMnemonic(rng.bytes(32), wordlist), network, clock);
    await node.#launch();
    const res = await node.rest('PUT', '/api/v1/system/settings', { ...SIM_SETTINGS, ...settings });
    if (res.status !== 200) throw new Error(`sim node ${index}: settings refused: ${JSON.stringify(res.body)}`);
    return node;
  }

  async #launch(): Promise<void> {
    // A name of its own on the network, the same in every run (a route hash commits to the destination's address);
    // under .localhost, which no resolver is asked about.
    const env = {
      NODE_DATA_DIR: this.dataDir,
      NODE_PORT: '0',
      NODE_BIND: '127.0.0.1',
      NODE_TEST_MODE: 'true',
      NODE_HOSTNAME: `http://n${this.index}.localhost`,
      RESTORE: this.mnemonic,
    };
    this.node = await startNode(loadConfig(env), {
      builtins: builtinPlugins,
      env,
      network: this.network,
      databaseCacheKiB: SIM_DATABASE_CACHE_KIB,
    });
  }

  get hash(): string {
    return this.node.identity.pubkeyHash;
  }

  get address(): string {
    return this.node.addresses().http!;
  }

  /** A signed REST call through the memory network, with the virtual clock running until it is answered. */
  async rest(method: string, path: string, body?: unknown, query: Record<string, string | number> = {}): Promise<Reply> {
    const cred = this.node.cliCredentials();
    const text = body === undefined ? '' : JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    // Unique per call and a function of the run: the node's nonce store refuses a repeat.
    const nonce = `sim${this.index}n${++this.#nonce}x`.padEnd(32, '0');
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const answer = await this.clock.settle(
      this.network.request(this.address, {
        method,
        path: qs ? `${path}?${qs}` : path,
        headers: {
          'x-api-key': cred.key_id,
          'x-api-timestamp': timestamp,
          'x-api-nonce': nonce,
          'x-api-signature': signRequest(cred.secret, method, path, timestamp, nonce, text),
          ...(text ? { 'content-type': 'application/json' } : {}),
        },
        ...(text ? { body: text } : {}),
        remoteAddress: '127.0.0.1',
      }),
    );
    let parsed: unknown = answer.body;
    try {
      parsed = answer.body ? JSON.parse(answer.body) : null;
    } catch {
      // not JSON: kept as text
    }
    return { status: answer.status, body: parsed };
  }

  /** `rest` that expects a 2xx and returns the envelope's data. */
  async ok(method: string, path: string, body?: unknown, query?: Record<string, string | number>): Promise<any> {
    const res = await this.rest(method, path, body, query);
    if (res.status >= 300) throw new Error(`node ${this.index}: ${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body?.data;
  }

  async stop(): Promise<void> {
    await this.node.stop();
  }

  async destroy(): Promise<void> {
    await this.node.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
