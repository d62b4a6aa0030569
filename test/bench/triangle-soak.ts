/**
 * `npm run soak`: issue 27's load trial on real processes. Three wallet-node processes started as the README starts
 * them (`npm start` with their own NODE_DATA_DIR and NODE_PORT, nothing else), joined in a triangle of VWL lines as
 * the README joins two (the accepting operator gives the asker's address), then SOAK_PAYMENTS (20,000) direct
 * payments both ways on all three lines from SOAK_SENDERS (8) concurrent senders through the REST API. It waits
 * until nothing is pending and checks: no payment failed, each node's balance with each contact is exactly what its
 * completed payments make it, and every node's chain verifies. Prints the figures; exits 1 on any miss.
 *
 * Two settings an operator running such a load sets (Document 2), as the trial did: the admin key's 1,000 requests a
 * minute (`rate_limit_enabled` false) and 60 peer messages a minute per contact (`p2p_rate_limit_per_minute`) would
 * otherwise throttle it to a crawl. Credit on each line is far above what the payments can move it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeApiError, NodeClient } from '../../kernel/cli/node-client.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const PAYMENTS = Number(process.env.SOAK_PAYMENTS ?? 20_000);
const SENDERS = Number(process.env.SOAK_SENDERS ?? 8);
const CURRENCY = 'VWL';
const CREDIT = '100000000';
/** The statuses a payment passes through before it is completed, failed, rejected or cancelled. */
const UNDECIDED = ['pending', 'sending', 'sent', 'accepted'];

interface Proc {
  name: string;
  port: number;
  dir: string;
  child: ChildProcess;
  output: string[];
  api: NodeClient;
  hash: string;
}

const address = (p: Proc): string => `http://127.0.0.1:${p.port}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

/** `npm start`'s command with the README's two variables, in an environment with no other NODE_* setting. */
async function start(name: string): Promise<Proc> {
  const dir = mkdtempSync(join(tmpdir(), `soak-${name}-`));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('NODE_') && k !== 'RESTORE' && k !== 'RESTORE_FILE') env[k] = v;
  const child = spawn(process.execPath, ['--no-node-snapshot', join(ROOT, 'dist/app/wallet-node.js')], {
    env: { ...env, NODE_DATA_DIR: dir, NODE_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (d: Buffer): void => {
    output.push(String(d));
    if (output.length > 200) output.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await until(`${name} on port ${port}`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${output.join('')}`);
    return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok ? true : null;
  });
  const api = NodeClient.local(dir);
  const hash = ((await api.get('/api/v1/wallet/info')) as { public_key_hash: string }).public_key_hash;
  await api.put('/api/v1/system/settings', { rate_limit_enabled: false, p2p_rate_limit_per_minute: 1_000_000 });
  return { name, port, dir, child, output, api, hash };
}

/** `a` asks `b` for a VWL line; `b`'s operator accepts, naming `a`'s address (README, "Your first payment"). */
async function connect(a: Proc, b: Proc): Promise<void> {
  await a.api.post('/api/v1/contacts', { address: address(b), name: b.name, credit_limit: CREDIT, currency: CURRENCY });
  await until(`${a.name}'s request on ${b.name}`, async () => {
    const data = (await b.api.get(`/api/v1/contacts/${a.hash}/currencies`).catch(() => null)) as { currencies: { status: string }[] } | null;
    return data?.currencies.some((c) => c.status === 'pending') ? true : null;
  });
  await b.api.post(`/api/v1/contacts/${a.hash}/decisions`, {
    decisions: [{ currency: CURRENCY, action: 'accept', fee: 0, credit: CREDIT }],
    is_new_contact: true,
    contact_address: address(a),
    contact_name: a.name,
  });
  await until(`${a.name}'s line with ${b.name}`, async () => {
    const data = (await a.api.get(`/api/v1/contacts/${b.hash}/currencies`)) as { currencies: { status: string }[] };
    return data.currencies.some((c) => c.status === 'accepted') ? true : null;
  });
}

interface Tx {
  txid: string;
  type: string;
  status: string;
  amount: string;
  contact_pubkey_hash?: string;
  error?: unknown;
}

async function transactions(p: Proc): Promise<Tx[]> {
  const all: Tx[] = [];
  for await (const tx of p.api.pages<Tx>('/api/v1/wallet/transactions', 'transactions', {}, 100)) all.push(tx);
  return all;
}

/** Hundredths of a unit, exact. */
const cents = (amount: string): bigint => {
  const [whole, frac = ''] = amount.replace(/^-/, '').split('.');
  const v = BigInt(whole!) * 100n + BigInt((frac + '00').slice(0, 2));
  return amount.startsWith('-') ? -v : v;
};

async function main(): Promise<void> {
  const started = performance.now();
  const nodes = [await start('alice'), await start('bob'), await start('carol')];
  const [a, b, c] = nodes as [Proc, Proc, Proc];
  try {
    await connect(a, b);
    await connect(b, c);
    await connect(c, a);
    const pairs: [Proc, Proc][] = [
      [a, b],
      [b, a],
      [b, c],
      [c, b],
      [c, a],
      [a, c],
    ];
    console.log(`triangle up in ${Math.round(performance.now() - started)} ms; ${PAYMENTS} payments from ${SENDERS} senders`);

    const refused = new Map<string, number>();
    const sent: { from: Proc; to: Proc; txid: string; amount: string }[] = [];
    let next = 0;
    const t0 = performance.now();
    const sender = async (): Promise<void> => {
      for (let i = next++; i < PAYMENTS; i = next++) {
        const [from, to] = pairs[i % pairs.length]!;
        const amount = `${1 + (i % 7)}.${String((i * 37) % 100).padStart(2, '0')}`;
        try {
          const res = (await from.api.post('/api/v1/wallet/send', { address: address(to), amount, currency: CURRENCY })) as { txid: string };
          sent.push({ from, to, txid: res.txid, amount });
        } catch (err) {
          const code = err instanceof NodeApiError ? err.code : String(err);
          refused.set(code, (refused.get(code) ?? 0) + 1);
        }
        if ((i + 1) % 2000 === 0) console.log(`${i + 1} sent, ${Math.round(performance.now() - t0)} ms`);
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const sendMs = performance.now() - t0;

    await until(
      'every payment final',
      async () => {
        for (const p of nodes) {
          for (const status of UNDECIDED) {
            // A node busy with thousands of payments may drop a poll's connection: the next poll asks again.
            const page = (await p.api.get('/api/v1/wallet/transactions', { status, limit: 1 }).catch(() => null)) as { pagination: { total: number } } | null;
            if (!page || page.pagination.total > 0) return null;
          }
        }
        return true;
      },
      30 * 60_000,
    );
    const settledMs = performance.now() - t0;
    const rows = new Map<Proc, Tx[]>();
    for (const p of nodes) rows.set(p, await transactions(p));

    const problems: string[] = [];
    const statusOf = new Map<string, string>();
    for (const p of nodes) for (const t of rows.get(p)!) if (t.type === 'sent') statusOf.set(t.txid, t.status);
    const outcomes: Record<string, number> = {};
    const expected = new Map<string, bigint>();
    const move = (holder: Proc, contact: Proc, v: bigint): void => {
      const key = `${holder.name}>${contact.name}`;
      expected.set(key, (expected.get(key) ?? 0n) + v);
    };
    for (const s of sent) {
      const status = statusOf.get(s.txid) ?? 'missing';
      outcomes[status] = (outcomes[status] ?? 0) + 1;
      if (status !== 'completed') {
        const row = rows.get(s.from)!.find((t) => t.txid === s.txid);
        if (problems.length < 20) problems.push(`${s.from.name}→${s.to.name} ${s.txid} ${status} ${JSON.stringify(row?.error ?? null)}`);
        continue;
      }
      move(s.to, s.from, cents(s.amount));
      move(s.from, s.to, -cents(s.amount));
    }
    for (const p of nodes) {
      const balances = ((await p.api.get('/api/v1/wallet/balance')) as { balances: { pubkey_hash: string; currency: string; net_balance: string }[] }).balances;
      for (const q of nodes) {
        if (q === p) continue;
        const got = balances.find((x) => x.pubkey_hash === q.hash && x.currency.toUpperCase() === CURRENCY);
        const want = expected.get(`${p.name}>${q.name}`) ?? 0n;
        if (!got || cents(got.net_balance) !== want) problems.push(`${p.name}'s balance with ${q.name}: ${got?.net_balance ?? 'none'}, expected ${want} hundredths`);
      }
      const verify = (await p.api.get('/api/v1/chain/verify')) as { ok: boolean; findings: number };
      if (!verify.ok) problems.push(`${p.name}: chain verify has ${verify.findings} finding(s)`);
    }
    const failed = sent.length - (outcomes.completed ?? 0);
    console.log(
      JSON.stringify(
        {
          payments: PAYMENTS,
          senders: SENDERS,
          accepted: sent.length,
          refused: Object.fromEntries(refused),
          outcomes,
          failed,
          sendSeconds: Math.round(sendMs / 100) / 10,
          settledSeconds: Math.round(settledMs / 100) / 10,
          paymentsPerSecond: Math.round((sent.length / settledMs) * 10_000) / 10,
        },
        null,
        2,
      ),
    );
    for (const p of problems) console.log(`PROBLEM ${p}`);
    process.exitCode = problems.length || refused.size ? 1 : 0;
  } finally {
    for (const p of nodes) p.child.kill('SIGTERM');
    await Promise.all(nodes.map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
    for (const p of nodes) rmSync(p.dir, { recursive: true, force: true });
  }
}

await main();
