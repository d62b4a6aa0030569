/**
 * Helpers of the ledger, wallet and payment-request tests: REST calls against test nodes, contact setup through the
 * contacts API, and waits on payment outcomes. Amounts are exact decimal strings throughout.
 */
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { builtinCliContributions, builtinCliRateLimits, identifyNode, isAdminKey } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import { call, hashOf, ok, waitFor } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';
import type { BuiltinPlugin } from '../../sdk/index.js';

export { call, hashOf, ok, waitFor, type Envelope as Env } from '../support/api.js';

/**
 * Makes A and B accepted contacts with a line in `currency`: A extends `creditAtoB` to B (how far B may go into
 * debt to A), B extends `creditBtoA` to A.
 */
export async function connect(
  A: TestNode,
  B: TestNode,
  opts: { currency?: string; creditAtoB?: string; creditBtoA?: string; nameOfB?: string; nameOfA?: string; addressOfB?: string; addressOfA?: string } = {},
): Promise<void> {
  const currency = opts.currency ?? 'VWL';
  const nameOfB = opts.nameOfB ?? 'Bob';
  const nameOfA = opts.nameOfA ?? 'Alice';
  await ok(A, 'POST', '/api/v1/contacts', { address: opts.addressOfB ?? B.node.baseUrl, name: nameOfB, fee_percent: 0, credit_limit: opts.creditAtoB ?? '1000', currency });
  await waitFor(
    () => call(B, 'GET', `/api/v1/contacts/${hashOf(A)}/currencies`),
    (r) => r.status === 200 && (r.body.data.currencies as any[]).some((c) => c.currency.toLowerCase() === currency.toLowerCase() && c.status === 'pending'),
    `contact request on ${nameOfB}`,
  );
  const bContact = await call(B, 'GET', `/api/v1/contacts/${hashOf(A)}`);
  const established = bContact.status === 200 && bContact.body.data.contact.status === 'accepted';
  const res = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
    decisions: [{ currency, action: 'accept', fee: 0, credit: opts.creditBtoA ?? '1000' }],
    ...(established ? {} : { is_new_contact: true, contact_address: opts.addressOfA ?? A.node.baseUrl, contact_name: nameOfA }),
  });
  if (res.accepted?.length !== 1) throw new Error(`accept failed: ${JSON.stringify(res)}`);
  await waitFor(
    () => call(A, 'GET', `/api/v1/contacts/${hashOf(B)}/currencies`),
    (r) => r.status === 200 && (r.body.data.currencies as any[]).some((c) => c.currency.toLowerCase() === currency.toLowerCase() && c.status === 'accepted'),
    `acceptance on ${nameOfA}`,
  );
}

/**
 * Two nodes started as the README starts them, made contacts with `connect` (credit 1000 each way), the contacts'
 * status cycle off so that only the test's own messages run between them. `extraBuiltinsOfA`: test plugins the first
 * one loads besides the shipped ones.
 */
export async function quietPair(extraBuiltinsOfA: BuiltinPlugin[] = []): Promise<[TestNode, TestNode]> {
  const [A, B] = await Promise.all([startTestNode({ extraBuiltins: extraBuiltinsOfA }), startTestNode()]);
  for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
  await connect(A, B);
  return [A, B];
}

/**
 * Two connected nodes (credit 100 each way) for delivery-failure tests: peer retries shortened to 20 ms
 * (NODE_PEER_RETRY_BASE_MS, in this test file's process) and the contacts' status cycle off, so only the tests' own
 * pings run. `done()` destroys both nodes and restores the environment.
 */
export async function fastRetryPair(): Promise<{ A: TestNode; B: TestNode; done: () => Promise<void> }> {
  const previous = process.env.NODE_PEER_RETRY_BASE_MS;
  process.env.NODE_PEER_RETRY_BASE_MS = '20';
  const [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
  await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
  const done = async (): Promise<void> => {
    if (previous === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
    else process.env.NODE_PEER_RETRY_BASE_MS = previous;
    await Promise.all([A, B].map((t) => t.destroy()));
  };
  return { A, B, done };
}

export async function setSettings(t: TestNode, body: Record<string, unknown>): Promise<void> {
  await ok(t, 'PUT', '/api/v1/system/settings', body);
}

export async function send(t: TestNode, address: string, amount: string | number, currency = 'VWL', description?: string): Promise<string> {
  const data = await ok(t, 'POST', '/api/v1/wallet/send', { address, amount, currency, ...(description !== undefined ? { description } : {}) });
  return data.txid as string;
}

/**
 * Payments between two contacts made one after another (each completed on both sides before the next), so each links
 * to the one before it on their chain. `to` is the name the payer knows the other by. Returns the txids in order.
 */
export async function tradeInOrder(payments: readonly (readonly [TestNode, string, string, TestNode])[]): Promise<string[]> {
  const txids: string[] = [];
  for (const [from, to, amount, receiver] of payments) {
    const txid = await send(from, to, amount);
    const [row] = await settledAll(from, [txid], receiver);
    if (row.status !== 'completed') throw new Error(`payment ${txid} ended ${row.status}`);
    txids.push(txid);
  }
  return txids;
}

export async function tx(t: TestNode, txid: string): Promise<any | null> {
  const res = await call(t, 'GET', `/api/v1/wallet/transactions/${txid}`);
  return res.status === 200 ? res.body.data.transaction : null;
}

const FINAL = new Set(['completed', 'rejected', 'cancelled', 'failed']);

/** Waits until the payment is final on the sender (and, when completed, present and completed on the receiver). */
export async function settled(sender: TestNode, txid: string, receiver?: TestNode, timeoutMs = 10_000): Promise<any> {
  const s = await waitFor(() => tx(sender, txid), (v) => v !== null && FINAL.has(v.status), `final status of ${txid.slice(0, 8)}`, timeoutMs);
  if (receiver && s.status === 'completed') {
    await waitFor(() => tx(receiver, txid), (v) => v !== null && v.status === 'completed', `completion of ${txid.slice(0, 8)} on the receiver`, timeoutMs);
  }
  return s;
}

/**
 * `settled` for many payments at once: waits until each is final on `sender` (and each completed one is completed on
 * `receiver`), reading the listing a page at a time instead of polling every payment on its own, so that dozens of
 * payments in flight stay far below the admin key's rate limit. Returns the rows in the order of `txids`.
 */
export async function settledAll(sender: TestNode, txids: readonly string[], receiver?: TestNode, timeoutMs = 30_000): Promise<any[]> {
  const rows = async (t: TestNode): Promise<Map<string, any>> => {
    const wanted = new Set(txids);
    const found = new Map<string, any>();
    for (let offset = 0; found.size < wanted.size; offset += 100) {
      const page = await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100, offset });
      for (const row of page.transactions as any[]) if (wanted.has(row.txid)) found.set(row.txid, row);
      if (offset + 100 >= page.pagination.total) break;
    }
    return found;
  };
  const final = await waitFor(() => rows(sender), (m) => txids.every((id) => FINAL.has(m.get(id)?.status)), `final status of ${txids.length} payments`, timeoutMs);
  const outcomes = txids.map((id) => final.get(id));
  if (receiver) {
    const completed = outcomes.filter((o) => o.status === 'completed').map((o) => o.txid as string);
    await waitFor(() => rows(receiver), (m) => completed.every((id) => m.get(id)?.status === 'completed'), `completion of ${completed.length} payments on the receiver`, timeoutMs);
  }
  return outcomes;
}

export async function balanceRow(t: TestNode, peer: TestNode, currency = 'VWL'): Promise<{ received: string; sent: string; net_balance: string } | null> {
  const data = await ok(t, 'GET', '/api/v1/wallet/balance');
  return (data.balances as any[]).find((b) => b.pubkey_hash === hashOf(peer) && b.currency.toLowerCase() === currency.toLowerCase()) ?? null;
}

export const dec = (s: string | number): Decimal => new Decimal(s);

/** Runs one statement on a node's database (live or stopped). */
export function sql(t: Pick<TestNode, 'dataDir'>, statement: string, ...params: unknown[]): void {
  const db = new Database(`${t.dataDir}/node.db`);
  db.pragma('busy_timeout = 5000');
  db.prepare(statement).run(...params);
  db.close();
}

/** Runs statements on a node's database with the node stopped (a damaged disk, a careless operator), then starts it again on its port. */
export async function editStopped(t: TestNode, statements: [string, ...unknown[]][]): Promise<void> {
  const port = t.node.port;
  await t.stop();
  for (const [statement, ...params] of statements) sql(t, statement, ...params);
  await t.restart({ NODE_PORT: String(port) });
}

/**
 * Turns a completed outgoing payment back into "sent, answer lost" (status sending, balances without it), as a crash
 * leaves it; `attempts` is its count of transport failures so far. Run it on a stopped node's data directory.
 */
export function loseAnswer(dataDir: string, txid: string, recoveryCount: number, attempts = 0): void {
  const db = new Database(`${dataDir}/node.db`);
  db.pragma('busy_timeout = 5000');
  db.transaction(() => {
    const row = db.prepare('SELECT contact_hash, currency_key, amount_whole, amount_frac FROM ledger_tx WHERE txid = ?').get(txid) as any;
    db.prepare(
      `UPDATE ledger_tx SET status = 'sending', chain_pos = NULL, completed_at = NULL, recipient_sig = NULL, in_doubt = 1,
        sending_started_at = ?, recovery_count = ?, attempts = ? WHERE txid = ?`,
    ).run(Date.now() - 1000, recoveryCount, attempts, txid);
    const b = db.prepare('SELECT sent_whole, sent_frac FROM ledger_balances WHERE contact_hash = ? AND currency_key = ?').get(row.contact_hash, row.currency_key) as any;
    let whole = b.sent_whole - row.amount_whole;
    let frac = b.sent_frac - row.amount_frac;
    if (frac < 0) {
      frac += 100_000_000;
      whole -= 1;
    }
    db.prepare('UPDATE ledger_balances SET sent_whole = ?, sent_frac = ? WHERE contact_hash = ? AND currency_key = ?').run(whole, frac, row.contact_hash, row.currency_key);
  })();
  db.close();
}

/**
 * Runs node-cli in this process against a test node, as its operator would: credentials and the rate file
 * (cli-rate.json) in the node's data directory. Returns the exit code and what it printed on stdout.
 */
export async function nodeCliHuman(t: Pick<TestNode, 'dataDir'>, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  let out = '';
  const stderr = new PassThrough();
  stderr.resume();
  const code = await runCli(
    {
      argv: [...args],
      env: { NODE_DATA_DIR: t.dataDir, ...env },
      cwd: t.dataDir,
      stdout: { write: (s: string) => void (out += s) },
      stderr: stderr as never,
      stdin: new PassThrough() as never,
    },
    { version: 'test', contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode, isAdminKey },
  );
  return { code, out };
}

/** node-cli with `--json`: the exit code and the parsed envelope. */
export async function nodeCli(t: Pick<TestNode, 'dataDir'>, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; body: any }> {
  const { code, out } = await nodeCliHuman(t, [...args, '--json'], env);
  return { code, body: JSON.parse(out) };
}
