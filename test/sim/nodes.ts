/**
 * The simulated nodes: each one the real kernel with the shipped builtin plugins, on a data directory of its own,
 * joined to the in-memory network, its identity restored from a mnemonic drawn from the seed. The simulator talks
 * to each through its REST API over the same network, signed with the node's admin key as node-cli signs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { builtinPlugins } from '../../builtin-plugins/index.js';
import { signRequest } from '../../kernel/auth/verifier.js';
import { loadConfig } from '../../kernel/config.js';
import { lockDataDir, type DataDirLock } from '../../kernel/db/open.js';
import { startNode, type RunningNode } from '../../kernel/node.js';
import type { MemoryResponse } from '../../kernel/net/memory-exchange.js';
import type { MemoryNetwork } from '../../kernel/peers/transport-memory.js';
import type { BuiltinPlugin } from '../../sdk/index.js';
import { owner, type Owner, type VirtualClock } from './clock.js';
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
  /** This instance of the node as the clock knows it (a restart makes a new one); `skewMs` is its clock's offset. */
  owner: Owner = { alive: true, skewMs: 0 };
  /** The plugins it runs: the shipped ones, or some wrapped by a liar (liars.ts). */
  builtins: readonly BuiltinPlugin[] = builtinPlugins;
  #nonce = 0;
  #lock: DataDirLock | null = null;
  #detach: (() => void) | null = null;
  /** Settles when this instance crashes: a REST call it was serving then has no answer. */
  #death: Promise<MemoryResponse> = new Promise(() => {});
  #die: () => void = () => {};

  private constructor(
    readonly index: number,
    readonly mnemonic: string,
    private readonly network: MemoryNetwork,
    private readonly clock: VirtualClock,
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'wallet-node-sim-'));
  }

  static async start(
    index: number,
    rng: Rng,
    network: MemoryNetwork,
    clock: VirtualClock,
    settings: Record<string, unknown> = {},
    shape: (node: SimNode) => void = () => {},
  ): Promise<SimNode> {
    const node = new SimNode(index, entropyToMnemonic(rng.bytes(32), wordlist), network, clock);
    shape(node);
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
    // The lock is the simulator's, as a process's is its own: a crash lets it go without the node's stop.
    this.#lock = lockDataDir(this.dataDir);
    this.#death = new Promise((resolve) => {
      this.#die = () => resolve({ status: 0, headers: {}, body: JSON.stringify({ error: { code: 'crashed' } }) });
    });
    const network = this.network;
    const self = this;
    // The node's view of the network: what it serves runs as this instance (its clock skew, its crash).
    const own = {
      transport: network.transport.bind(network),
      attach(address: string, listener: RequestListener) {
        const instance = self.owner;
        self.#detach = network.attach(address, (req, res) => owner.run(instance, () => listener(req, res)));
        return self.#detach;
      },
    } as unknown as MemoryNetwork;
    this.node = await owner.run(this.owner, () => startNode(loadConfig(env), { builtins: this.builtins, env, network: own, lock: this.#lock!, databaseCacheKiB: SIM_DATABASE_CACHE_KIB }));
  }

  get alive(): boolean {
    return this.owner.alive;
  }

  /**
   * Stops the node as a killed process stops: nothing it would do next runs (its timers and immediates are dropped,
   * its pending exchanges never answer), nothing is flushed or closed, and its data directory is left as the last
   * commit wrote it. Its database connection is left open (unused), as closing it is a graceful act.
   */
  crash(): void {
    this.owner.alive = false;
    this.#die();
    this.#detach?.();
    this.#lock?.release();
  }

  /** Starts a new instance of the node on the data directory its crashed one left. */
  async restart(): Promise<void> {
    this.owner = { alive: true, skewMs: this.owner.skewMs };
    await this.#launch();
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
    const answer = await this.clock.settle(Promise.race([this.#death, this.network.request(this.address, {
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
      })]),
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
    if (this.alive) await this.node.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
