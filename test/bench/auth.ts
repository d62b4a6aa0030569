/**
 * Benchmark: the cost of authenticating one signed REST request, measured in-process on the very pieces the
 * node wires (ApiKeyStore, NonceStore, SlidingWindowLimiter, RequestVerifier; see kernel/node.ts).
 * Requests are signed beforehand, so only the server side is timed. It asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyStore } from '../../kernel/auth/key-store.js';
import { NonceStore } from '../../kernel/auth/nonces.js';
import { SlidingWindowLimiter } from '../../kernel/auth/rate-limiter.js';
import { RequestVerifier, SIGNATURE_WINDOW_SECONDS, signRequest, type SignedRequest } from '../../kernel/auth/verifier.js';
import { migrate } from '../../kernel/db/migrations.js';
import { openDatabase, type Db } from '../../kernel/db/open.js';
import { kernelMigrations } from '../../kernel/migrations.js';
import { STATUS_PATH } from './status.js';

const EMPTY = Buffer.alloc(0);

function signedRequests(keyId: string, secret: string, n: number): SignedRequest[] {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const prefix = randomBytes(8).toString('hex');
  const out: SignedRequest[] = [];
  for (let i = 0; i < n; i++) {
    const headers: Record<string, string> = {
      'x-api-key': keyId,
      'x-api-timestamp': timestamp,
      'x-api-nonce': prefix + i.toString(36),
      'x-api-signature': '',
    };
    headers['x-api-signature'] = signRequest(secret, 'GET', STATUS_PATH, timestamp, headers['x-api-nonce']!, EMPTY);
    out.push({ method: 'GET', path: STATUS_PATH, rawBody: EMPTY, header: (name) => headers[name] });
  }
  return out;
}

/** µs per RequestVerifier.verify on a database opened like the node's (file: WAL, synchronous=NORMAL). */
function timeVerifier(db: Db, n: number, rateLimit: boolean): number {
  migrate(db, 'kernel', kernelMigrations);
  const keys = new ApiKeyStore(db, randomBytes(32), 'wnbench');
  const { record, secret } = keys.create({ name: 'bench', permissions: ['admin'], rate_limit_per_minute: 10 * n });
  const verifier = new RequestVerifier(keys, new NonceStore(db, SIGNATURE_WINDOW_SECONDS), new SlidingWindowLimiter(), () => rateLimit);
  const warm = signedRequests(record.key_id, secret, Math.min(5000, n));
  for (const r of warm) verifier.verify(r, Date.now());
  const requests = signedRequests(record.key_id, secret, n);
  const now = Date.now();
  const t0 = process.hrtime.bigint();
  for (const r of requests) verifier.verify(r, now);
  const elapsed = Number(process.hrtime.bigint() - t0) / 1000;
  return elapsed / n;
}

export function runAuthBench(n: number): void {
  const memory = openDatabase(':memory:');
  const inMemory = timeVerifier(memory, n, true);
  memory.close();

  const dir = mkdtempSync(join(tmpdir(), 'wallet-node-bench-'));
  try {
    const file = openDatabase(join(dir, 'node.db'));
    const onDisk = timeVerifier(file, n, true);
    file.close();
    const nonceDb = openDatabase(join(dir, 'nonces.db'));
    migrate(nonceDb, 'kernel', kernelMigrations);
    const nonces = new NonceStore(nonceDb, SIGNATURE_WINDOW_SECONDS);
    const ts = Math.floor(Date.now() / 1000);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) nonces.use('wnbench_key', `nonce-${i}`, ts, ts);
    const nonceInsert = Number(process.hrtime.bigint() - t0) / 1000 / n;
    nonceDb.close();
    console.log(`  RequestVerifier.verify, ${n} signed requests, rate limiting on, each nonce spent:`);
    console.log(`    in-memory sqlite                 ${inMemory.toFixed(2)} µs per verification`);
    console.log(`    file sqlite (WAL, as node.db)    ${onDisk.toFixed(2)} µs per verification`);
    console.log(`    of which spending the nonce (one INSERT, its own commit, file sqlite): ~${nonceInsert.toFixed(2)} µs`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const secret = randomBytes(32).toString('hex');
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) signRequest(secret, 'GET', STATUS_PATH, '1700000000', `nonce${i}`, EMPTY);
  const hmac = Number(process.hrtime.bigint() - t0) / 1000 / n;
  console.log(`    of which HMAC-SHA256 of the string to sign: ~${hmac.toFixed(2)} µs`);
}
