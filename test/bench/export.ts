/**
 * Export benchmark (prints figures, asserts nothing): GET /api/v1/export/transactions over N transactions (default
 * 1,000,000; BENCH_EXPORT_ROWS), the node in its own process, the client reading as fast as it can on loopback.
 *
 * The rows go in through the ledger's own store (LedgerStore.insert) in one transaction on the node's database while
 * no node runs; then the node starts in a child process and the export streams. Figures: rows per second from the
 * request to the last byte, and the node's resident memory (VmRSS sampled every 10 ms; VmHWM is the process's peak
 * since its start) against the issue's goal of 250,000 rows/s under 150 MB, and the node's CPU time per export (rows per
 * CPU second: what one idle core would stream, a figure the other load of a shared machine barely moves). Then the
 * listing's first page over the same rows under the history's filters.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LedgerStore } from '../../builtin-plugins/ledger/store.js';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { signRequest } from '../../kernel/auth/verifier.js';
import { AS_OPERATORS_RUN, startTestNode, tempDataDir } from '../support/node.js';

const MB = 1024 * 1024;

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM); NaN where /proc is not there. */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

interface Credentials {
  baseUrl: string;
  keyId: string;
  secret: string;
}

/** A signed GET with node:http (lighter than fetch: the client shares the machine's two cores with the node). */
function signedGet(creds: Credentials, path: string, query: Record<string, string>): Promise<IncomingMessage> {
  const url = new URL(path, creds.baseUrl);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const headers = {
    'X-API-Key': creds.keyId,
    'X-API-Timestamp': timestamp,
    'X-API-Nonce': nonce,
    'X-API-Signature': signRequest(creds.secret, 'GET', url.pathname, timestamp, nonce, ''),
  };
  return new Promise((resolve, reject) => httpRequest(url, { headers }, resolve).on('error', reject).end());
}

const mb = (bytes: number): string => (Number.isNaN(bytes) ? '-' : `${(bytes / MB).toFixed(1)} MB`);

/** N settled-looking transactions with 50 unknown counterparties, spread over the past year, through the ledger's store. */
export function seedTransactions(dataDir: string, rows: number): number {
  const db = new Database(join(dataDir, 'node.db'));
  // Setup only, with no node running: a large cache for the growing indexes, no journal fsyncs. The node itself
  // opens the file with its own settings (WAL, default cache) afterwards.
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const store = new LedgerStore(db);
  const own = 'a'.repeat(64);
  const contacts = Array.from({ length: 50 }, () => randomBytes(32).toString('hex'));
  // Random txids, inserted in txid order: the unique index then grows at its end instead of splitting pages all over.
  const random = randomBytes(32 * rows);
  const ids = Array.from({ length: rows }, (_, i) => random.toString('hex', i * 32, i * 32 + 32)).sort();
  const statuses = ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'rejected', 'cancelled'] as const;
  const now = Date.now();
  const start = performance.now();
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const contact = contacts[i % contacts.length]!;
      const sent = i % 3 !== 0;
      const txid = ids[i]!;
      const amount = BigInt(1 + (i % 5000)) * 1_000_000n + BigInt(i % 97);
      const createdAt = now - (rows - i) * 30_000;
      store.transactions.insert({
        txid,
        type: sent ? 'sent' : 'received',
        status: statuses[i % statuses.length]!,
        contactHash: contact,
        counterpartyPublicKey: null,
        fromHash: sent ? own : contact,
        toHash: sent ? contact : own,
        amount,
        currency: i % 4 === 0 ? 'USD' : 'VWL',
        timeMicros: createdAt * 1000,
        salt: 'f'.repeat(32),
        prevTxid: i > 0 ? ids[i - 1]! : null,
        description: i % 7 === 0 ? null : `invoice ${i} for services`,
        expiresAt: null,
        content: `{"amount":"${amount}","currency":"VWL","from":"${own}","memo":"standard","prev":null,"salt":"${'f'.repeat(32)}","time":${createdAt * 1000},"to":"${contact}","txid":"${txid}","v":1}`,
        senderSignature: 'S'.repeat(86),
        recipientSignature: 'R'.repeat(86),
        senderAddress: 'https://node-a.example:8443',
        receiverAddress: 'https://node-b.example:8443',
        refundOf: null,
        now: createdAt,
      });
    }
  })();
  db.pragma('journal_mode = WAL');
  db.close();
  return (performance.now() - start) / 1000;
}

export async function benchExport(rows: number): Promise<void> {
  const dataDir = tempDataDir();
  try {
    const initial = await startTestNode({ dataDir, env: AS_OPERATORS_RUN });
    await initial.stop();
    const seconds = seedTransactions(dataDir, rows);
    console.log(`  ${rows.toLocaleString('en-US')} transactions inserted through LedgerStore.insert in one transaction: ${seconds.toFixed(1)} s`);
    await measureExports(dataDir, rows);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The listing's first page over the same rows, as the GUI's history asks it: no filter, each type, two statuses, and
 * an amount bound every row meets. Each answer counts its total. p50 of 21 calls each.
 */
async function measureListing(creds: Credentials, rows: number): Promise<void> {
  const p50 = async (query: Record<string, string>): Promise<{ ms: number; total: number }> => {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < 21; i++) {
      const started = performance.now();
      const res = await signedGet(creds, '/api/v1/wallet/transactions', { limit: '20', ...query });
      const chunks: Buffer[] = [];
      for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
      if (res.statusCode !== 200) throw new Error(`the listing answered ${res.statusCode}`);
      times.push(performance.now() - started);
      total = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { pagination: { total: number } } }).data.pagination.total;
    }
    return { ms: times.sort((a, b) => a - b)[10]!, total };
  };
  const filters: Record<string, string>[] = [{}, { type: 'sent' }, { type: 'received' }, { type: 'relay' }, { status: 'completed' }, { status: 'failed' }, { amount_min: '0.00000001' }];
  const figures: string[] = [];
  for (const filter of filters) {
    const { ms, total } = await p50(filter);
    if (Object.keys(filter).length === 0 && total !== rows) console.log(`  warning: the listing's total is ${total}, expected ${rows}`);
    figures.push(`${Object.entries(filter).map(([k, v]) => `${k}=${v}`)[0] ?? 'no filter'} ${ms.toFixed(2)} ms (${total.toLocaleString('en-US')})`);
  }
  console.log(`  GET /wallet/transactions?limit=20, p50 of 21 (total): ${figures.join(', ')}`);
}

async function cpuOf(child: ChildProcess): Promise<number> {
  child.send('cpu');
  for (;;) {
    const [m] = (await once(child, 'message')) as [{ cpu?: number }];
    if (typeof m.cpu === 'number') return m.cpu;
  }
}

/** Starts the node on a seeded data directory in a child process and times the exports. */
export async function measureExports(dataDir: string, rows: number): Promise<void> {
  {
    const child = fork(new URL('./export-node.js', import.meta.url), [dataDir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const [creds] = (await once(child, 'message')) as [Credentials];
    const pid = child.pid!;
    try {
      const runs: [string, Record<string, string>][] = [
        ['CSV, slim (the default)', {}],
        ['NDJSON, slim', { format: 'json' }],
        ['CSV, full', { view: 'full' }],
      ];
      for (const [label, query] of runs) {
        const cpuBefore = await cpuOf(child);
        const before = procStatus(pid, 'VmRSS');
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, procStatus(pid, 'VmRSS'))), 10);
        const started = performance.now();
        const res = await signedGet(creds, '/api/v1/export/transactions', query);
        if (res.statusCode !== 200) throw new Error(`export answered ${res.statusCode}`);
        let lines = 0;
        let bytes = 0;
        for await (const chunk of res as AsyncIterable<Buffer>) {
          bytes += chunk.length;
          for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
        }
        const elapsed = (performance.now() - started) / 1000;
        clearInterval(sampler);
        peak = Math.max(peak, procStatus(pid, 'VmRSS'));
        const cpu = ((await cpuOf(child)) - cpuBefore) / 1e6;
        const exported = lines - (query.format === 'json' ? 0 : 1);
        console.log(
          `  ${label.padEnd(24)} ${exported.toLocaleString('en-US')} rows, ${mb(bytes)} in ${elapsed.toFixed(2)} s: ` +
            `${Math.round(exported / elapsed).toLocaleString('en-US')} rows/s, ${(bytes / MB / elapsed).toFixed(0)} MB/s; ` +
            `node CPU ${cpu.toFixed(2)} s (${Math.round(exported / cpu).toLocaleString('en-US')} rows per CPU second); ` +
            `node RSS ${mb(before)} before, peak ${mb(peak)} during (goal: 250,000 rows/s, RSS < 150 MB)`,
        );
        if (exported !== rows) console.log(`  warning: expected ${rows} rows`);
      }
      console.log(`  node process peak RSS since its start (VmHWM): ${mb(procStatus(pid, 'VmHWM'))}`);
      await measureListing(creds, rows);
    } finally {
      child.send('stop');
      await once(child, 'exit');
    }
  }
}
