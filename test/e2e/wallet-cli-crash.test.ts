/**
 * kill -9 of the sender mid-payment, then restart on the same data directory and port: the payment settles exactly
 * once on both sides. The sender is a real `wallet-node` process (dist/, built by CI before the tests); the receiver
 * runs in this process behind a TCP relay that can hold the sender's bytes, so the kill lands while the payment is
 * on the wire:
 *
 *   1. answer lost:     the sender is killed while its request is held; the relay then delivers it, the receiver
 *                       completes the payment and answers into a dead socket; the restarted sender resends, the
 *                       receiver answers from its record.
 *   2. never delivered: the sender is killed while its request is held; the relay drops it; the restarted sender
 *                       resends and the receiver completes it now.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedClient } from '../../kernel/cli/rest-client.js';
import { DAEMON, ROOT, cleanEnv, freePort, until } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';

/**
 * A TCP relay in front of the receiver. `hold()` keeps every byte clients send from then on; `release()` delivers
 * them (even when the client is gone), `drop()` discards them and closes those connections.
 */
class Relay {
  server: Server;
  target = 0;
  #holding = false;
  #held: { upstream: Socket; chunks: Buffer[] }[] = [];
  heldBytes = 0;

  /** Whether the held bytes include a message the given plugin sent (its message ids are plaintext in the header). */
  holds(marker: string): boolean {
    return this.#held.some((h) => Buffer.concat(h.chunks).toString('latin1').includes(marker));
  }

  constructor() {
    this.server = createServer((client) => this.#pipe(client));
  }

  listen(port: number): Promise<void> {
    return new Promise((r) => this.server.listen(port, '127.0.0.1', () => r()));
  }

  hold(): void {
    this.#holding = true;
  }

  release(): void {
    this.#holding = false;
    for (const h of this.#held) for (const c of h.chunks.splice(0)) h.upstream.write(c);
    this.#held = [];
    this.heldBytes = 0;
  }

  drop(): void {
    this.#holding = false;
    for (const h of this.#held) h.upstream.destroy();
    this.#held = [];
    this.heldBytes = 0;
  }

  #pipe(client: Socket): void {
    const upstream = tcpConnect(this.target, '127.0.0.1');
    const entry = { upstream, chunks: [] as Buffer[] };
    client.on('data', (d: Buffer) => {
      if (this.#holding || entry.chunks.length) {
        if (!this.#held.includes(entry)) this.#held.push(entry);
        entry.chunks.push(d);
        this.heldBytes += d.length;
      } else upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!client.destroyed) client.write(d);
    });
    client.on('error', () => undefined);
    upstream.on('error', () => client.destroy());
    // A client that dies keeps its held bytes: release() still delivers them (the "answer lost" case).
    client.on('close', () => {
      if (!this.#held.includes(entry)) upstream.end();
    });
    upstream.on('close', () => client.destroy());
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
    });
  }
}

interface Daemon {
  proc: ChildProcess;
  exit: Promise<number | null>;
  log: () => string;
}

function startDaemon(dataDir: string, port: number): Daemon {
  let log = '';
  const proc = spawn(process.execPath, [DAEMON], {
    env: cleanEnv({ NODE_DATA_DIR: dataDir, NODE_PORT: String(port), NODE_BIND: '127.0.0.1', NODE_TEST_MODE: 'true', NODE_PEER_PRIVATE_ADDRESSES: 'true' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (log += String(d)));
  proc.stderr!.on('data', (d) => (log += String(d)));
  return { proc, exit: new Promise((r) => proc.once('exit', (code) => r(code))), log: () => log };
}

async function healthy(base: string, d: Daemon): Promise<void> {
  await until('sender /healthz', async () => {
    if (d.proc.exitCode !== null) throw new Error(`wallet-node exited (${d.proc.exitCode}):\n${d.log()}`);
    const res = await fetch(`${base}/healthz`).catch(() => null);
    return res?.ok ? true : null;
  }, 20_000);
}

type Env = { success: boolean; data: any; error?: any };

describe('kill -9 of the sender mid-payment', () => {
  let relay: Relay;
  let B: TestNode;
  let dataDir = '';
  let port = 0;
  let base = '';
  let daemon: Daemon | null = null;
  let A: SignedClient;

  const a = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await A.request<Env>(method, path, body === undefined ? {} : { body });
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const txOn = async (who: 'A' | 'B', txid: string): Promise<any | null> => {
    const res = who === 'A' ? await A.get<Env>(`/api/v1/wallet/transactions/${txid}`) : await B.admin.get<Env>(`/api/v1/wallet/transactions/${txid}`);
    return res.status === 200 ? res.body.data.transaction : null;
  };
  const balances = async (): Promise<{ a: any; b: any }> => {
    const onA = (await a('GET', '/api/v1/wallet/balance')).balances.find((r: any) => r.pubkey_hash === B.node.identity.pubkeyHash);
    const onB = (await B.admin.get<Env>('/api/v1/wallet/balance')).body.data.balances.find((r: any) => r.pubkey_hash !== undefined && r.contact_name === 'Alice');
    return { a: onA, b: onB };
  };
  const restart = async (): Promise<void> => {
    daemon = startDaemon(dataDir, port);
    await healthy(base, daemon);
  };
  const kill9 = async (): Promise<void> => {
    daemon!.proc.kill('SIGKILL');
    await daemon!.exit;
  };

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/app/wallet-node.js'))) throw new Error('dist/ is missing: run `npm run build` before the e2e tests (CI builds first)');
    relay = new Relay();
    const relayPort = await freePort();
    await relay.listen(relayPort);
    B = await startTestNode();
    relay.target = B.node.port;

    dataDir = mkdtempSync(join(tmpdir(), 'wallet-crash-e2e-'));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await restart();
    const creds = await until('cli.json', () => {
      const f = join(dataDir, 'cli.json');
      if (!existsSync(f)) return null;
      try {
        return JSON.parse(readFileSync(f, 'utf8')) as { base_url: string; key_id: string; secret: string };
      } catch {
        return null;
      }
    });
    A = new SignedClient({ baseUrl: creds.base_url, keyId: creds.key_id, secret: creds.secret });
    // Plain HTTP toward Bob, through the relay (the address Alice adds him by is the relay's).
    await a('PUT', '/api/v1/system/settings', { default_transport_mode: 'http' });
    await a('POST', '/api/v1/contacts', { address: `http://127.0.0.1:${relayPort}`, name: 'Bob', credit_limit: '1000', currency: 'VWL' });
    const aHash = (await a('GET', '/api/v1/wallet/info')).public_key_hash;
    await until('request on Bob', async () => {
      const r = await B.admin.get<Env>(`/api/v1/contacts/${aHash}/currencies`);
      return r.status === 200 && r.body.data.currencies.some((c: any) => c.status === 'pending') ? true : null;
    });
    const decided = await B.admin.post<Env>(`/api/v1/contacts/${aHash}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '1000' }],
      is_new_contact: true,
      contact_address: base,
      contact_name: 'Alice',
    });
    expect(decided.body.data.accepted).toEqual(['VWL']);
    await until('acceptance on Alice', async () => {
      const r = await A.get<Env>(`/api/v1/contacts/${B.node.identity.pubkeyHash}/currencies`);
      return r.status === 200 && r.body.data.currencies.some((c: any) => c.status === 'accepted') ? true : null;
    });
    // A first payment with the relay open: the chain is not empty when the crash comes.
    const warm = (await a('POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'VWL' })).txid;
    await until('first payment', async () => ((await txOn('B', warm))?.status === 'completed' ? true : null));
  }, 60_000);

  afterAll(async () => {
    if (daemon && daemon.proc.exitCode === null) await kill9();
    await B?.destroy();
    await relay?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answer lost: the receiver completed it while the sender was dead; after restart it settles once', async () => {
    relay.hold();
    const txid = (await a('POST', '/api/v1/wallet/send', { address: 'Bob', amount: '10.12345678', currency: 'VWL' })).txid;
    await until('the payment on the wire', () => (relay.holds('req_ledger_') ? true : null));
    await kill9();
    relay.release();
    await until('completion on Bob while Alice is dead', async () => ((await txOn('B', txid))?.status === 'completed' ? true : null));

    await restart();
    const done = await until('completion on Alice after restart', async () => {
      const t = await txOn('A', txid);
      return t && ['completed', 'rejected', 'failed', 'cancelled'].includes(t.status) ? t : null;
    });
    expect(done.status).toBe('completed');
    expect(done.needs_review).toBe(false);
    const { a: onA, b: onB } = await balances();
    expect(onA).toMatchObject({ sent: '11.12345678', received: '0' });
    expect(onB).toMatchObject({ received: '11.12345678', sent: '0' });
    const received = (await B.admin.get<Env>('/api/v1/wallet/transactions', { query: { type: 'received' } })).body.data;
    expect(received.pagination.total).toBe(2);
  });

  it('never delivered: the bytes die with the sender; after restart it is sent again and settles once', async () => {
    if (!daemon || daemon.proc.exitCode !== null) await restart();
    relay.hold();
    const txid = (await a('POST', '/api/v1/wallet/send', { address: 'Bob', amount: '2.5', currency: 'VWL' })).txid;
    await until('the payment on the wire', () => (relay.holds('req_ledger_') ? true : null));
    await kill9();
    relay.drop();
    expect(await txOn('B', txid)).toBeNull();

    await restart();
    const done = await until('settlement after restart', async () => {
      const t = await txOn('B', txid);
      return t?.status === 'completed' ? t : null;
    });
    expect(done.amount).toBe('2.5');
    await until('completion on Alice', async () => ((await txOn('A', txid))?.status === 'completed' ? true : null));
    const { a: onA, b: onB } = await balances();
    expect(onA).toMatchObject({ sent: '13.62345678' });
    expect(onB).toMatchObject({ received: '13.62345678' });
    const received = (await B.admin.get<Env>('/api/v1/wallet/transactions', { query: { type: 'received' } })).body.data;
    expect(received.pagination.total).toBe(3);
    // The chain is one line on both sides.
    const chain = (await B.admin.get<Env>('/api/v1/wallet/transactions', { query: { limit: 100 } })).body.data.transactions;
    const prevs = chain.map((t: any) => t.previous_txid);
    expect(new Set(prevs).size).toBe(prevs.length);
  });
});
