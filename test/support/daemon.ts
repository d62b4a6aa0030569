/**
 * Real `wallet-node` and `node-cli` processes from dist/ (built by CI before the tests), as an operator runs them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignedClient } from '../../kernel/cli/rest-client.js';
import type { TestNode } from './node.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DAEMON = join(ROOT, 'bin/wallet-node.js');
export const CLI = join(ROOT, 'bin/node-cli.js');

export function requireBuild(): void {
  if (!existsSync(join(ROOT, 'dist/app/wallet-node.js')) || !existsSync(join(ROOT, 'dist/app/node-cli.js'))) {
    throw new Error('dist/ is missing: run `npm run build` before these tests (CI builds first)');
  }
}

/** The caller's environment without its node settings, so nothing leaks in from the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('NODE_') && k !== 'NODE_OPTIONS') delete env[k];
  delete env.RESTORE;
  delete env.RESTORE_FILE;
  return { ...env, ...extra };
}

/**
 * A port free now, drawn below the range the system gives outgoing connections their local ports from: a port from
 * `listen(0)` lies in that range, and a connection any parallel test opens may take it before the process the port is
 * meant for listens on it (seen: README's second node failed EADDRINUSE in CI).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let i = 0; i < 100; i++) {
    const port = PORT_FLOOR + Math.floor(Math.random() * (low - PORT_FLOOR));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${PORT_FLOOR} and ${low}`);
}

const PORT_FLOOR = 10_000;

/** The first port of the system's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range; else IANA's 49152). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > PORT_FLOOR + 1000) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once('error', () => done(false));
    s.listen(port, '127.0.0.1', () => s.close(() => done(true)));
  });
}

export async function until<T>(what: string, probe: () => Promise<T | null | undefined> | T | null | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Daemon {
  proc: ChildProcess;
  exit: Promise<number | null>;
  output: () => string;
}

/**
 * Spawns `wallet-node` with a clean environment plus `env`. `shell` runs it through `sh -c` with that prefix
 * (`umask 000;`), replacing the shell, so the pid is still the node's.
 */
export function spawnDaemon(env: Record<string, string>, options: { args?: string[]; shell?: string } = {}): Daemon {
  let output = '';
  const args = ['--no-node-snapshot', DAEMON, ...(options.args ?? [])];
  const fullEnv = cleanEnv({ NODE_BIND: '127.0.0.1', NODE_TEST_MODE: 'true', NODE_PEER_PRIVATE_ADDRESSES: 'true', ...env });
  const proc =
    options.shell === undefined
      ? spawn(process.execPath, args, { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('sh', ['-c', `${options.shell} exec "$0" "$@"`, process.execPath, ...args], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d) => (output += String(d)));
  proc.stderr!.on('data', (d) => (output += String(d)));
  return { proc, exit: new Promise((r) => proc.once('exit', (code) => r(code))), output: () => output };
}

/** Waits until the daemon answers /healthz on `port`; fails at once with its output if it exits. */
export async function healthy(d: Daemon, port: number): Promise<void> {
  await until(
    `wallet-node on port ${port}`,
    async () => {
      if (d.proc.exitCode !== null) throw new Error(`wallet-node exited (${d.proc.exitCode}):\n${d.output()}`);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      return res?.ok ? true : null;
    },
    20_000,
  );
}

/** A client signed with the admin key the node wrote to `<dataDir>/cli.json`. */
export function cliJsonClient(dataDir: string): SignedClient {
  const creds = JSON.parse(readFileSync(join(dataDir, 'cli.json'), 'utf8')) as { base_url: string; key_id: string; secret: string };
  return new SignedClient({ baseUrl: creds.base_url, keyId: creds.key_id, secret: creds.secret });
}

export async function kill9(d: Daemon): Promise<void> {
  if (d.proc.exitCode !== null || d.proc.signalCode !== null) return;
  d.proc.kill('SIGKILL');
  await d.exit;
}

/** `data` of a successful signed call; throws with the whole answer otherwise. */
export type SignedCall = (method: string, path: string, body?: unknown, query?: Record<string, string | number>) => Promise<any>;

export function signedCall(client: SignedClient): SignedCall {
  return async (method, path, body, query) => {
    const res = await client.request<{ data: any }>(method, path, { ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) });
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
}

/**
 * Makes the daemon behind `a` (reachable at `address`) and the in-process node B accepted contacts in VWL, each
 * extending 1000 to the other unless told otherwise: the daemon adds B as "Bob", Bob accepts the daemon as "Alice".
 */
export async function connectToTestNode(
  a: SignedCall,
  address: string,
  B: TestNode,
  opts: { name?: string; daemonName?: string; daemonExtends?: string; nodeExtends?: string } = {},
): Promise<void> {
  await a('POST', '/api/v1/contacts', { address: B.node.baseUrl, name: opts.name ?? 'Bob', credit_limit: opts.daemonExtends ?? '1000', currency: 'VWL' });
  const aHash = (await a('GET', '/api/v1/wallet/info')).public_key_hash as string;
  const has = (currencies: { status: string }[] | undefined, status: string): true | null => (currencies?.some((c) => c.status === status) ? true : null);
  await until('request on Bob', async () => {
    const r = await B.admin.get<{ data: { currencies?: { status: string }[] } }>(`/api/v1/contacts/${aHash}/currencies`);
    return r.status === 200 ? has(r.body.data.currencies, 'pending') : null;
  });
  const decided = await B.admin.post<{ data: { accepted?: string[] } }>(`/api/v1/contacts/${aHash}/decisions`, {
    decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: opts.nodeExtends ?? '1000' }],
    is_new_contact: true,
    contact_address: address,
    contact_name: opts.daemonName ?? 'Alice',
  });
  if (decided.body.data?.accepted?.[0] !== 'VWL') throw new Error(`Bob did not accept: ${JSON.stringify(decided.body)}`);
  await until('acceptance on Alice', async () => has((await a('GET', `/api/v1/contacts/${B.node.identity.pubkeyHash}/currencies`)).currencies, 'accepted'));
}
