/**
 * Boot recovery from a backup into a new data directory (NODE_BOOT_RECOVERY_BACKUP with the seed phrase), through
 * startTestNode: the same startNode path the daemon takes (test/e2e/backups-cli.test.ts runs the real process).
 *
 * Alice and Bob trade 100 payments while Alice writes a backup; it verifies, and Alice recovered from it keeps her
 * identity, contacts, requests, payback methods and API keys, with transactions and balances that agree with each
 * other. A backup at rest brings back exactly what Alice had: wallet info, balances, contacts, requests, payback
 * methods (secrets included), API keys (their secrets still sign), transactions and settings; the recovered node
 * then pays Bob on the same chain. Every refusal (a non-empty directory, a changed byte, another node's seed phrase,
 * no seed phrase, a bad name, a missing file, an older format) stops the start and leaves the directory as it was.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { clientWithKey, startTestNode, tempDataDir, type TestNode } from '../support/node.js';
import { connect, hashOf, ok, send, settled, settledAll } from './ledger-support.js';

const started: TestNode[] = [];
const temps: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
const start = async (options: Parameters<typeof startTestNode>[0] = {}): Promise<TestNode> => {
  const t = await startTestNode(options);
  started.push(t);
  return t;
};

afterAll(async () => {
  for (const t of started) await t.destroy();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

async function allTransactions(t: TestNode): Promise<any[]> {
  const rows: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100, offset });
    rows.push(...page.transactions);
    if (offset + 100 >= page.pagination.total) return rows;
  }
}

const SEPA = { rail: 'sepa', recipient_name: 'Quillon Wexford', iban: 'DE89370400440532013000' };

/** Everything a recovered node must bring back, as the REST API shows it (addresses follow the new listener). */
async function stateOf(t: TestNode): Promise<Record<string, unknown>> {
  const { addresses: _addresses, ...info } = await ok(t, 'GET', '/api/v1/wallet/info');
  const methods = (await ok(t, 'GET', '/api/v1/payback-methods')).methods as any[];
  const revealed = [];
  for (const m of methods) revealed.push((await ok(t, 'GET', `/api/v1/payback-methods/${m.method_id}/reveal`)).method);
  const keys = ((await ok(t, 'GET', '/api/v1/keys')).keys as any[]).filter((k) => k.name !== 'node-cli').map(({ last_used_at: _l, ...k }) => k);
  return {
    info,
    balances: await ok(t, 'GET', '/api/v1/wallet/balance'),
    contacts: await ok(t, 'GET', '/api/v1/contacts'),
    requests: await ok(t, 'GET', '/api/v1/requests'),
    payback: revealed,
    keys,
    transactions: await allTransactions(t),
    settings: (await ok(t, 'GET', '/api/v1/system/settings')).settings,
  };
}

/** Contacts without what payments and pings keep refreshing. */
const stableContacts = (contacts: any): unknown =>
  (contacts.contacts as any[]).map(({ currencies, my_available_credit: _m, ...c }) => ({
    ...c,
    currencies: (currencies as any[]).map(({ my_available_credit: _c, updated_at: _u, ...row }) => row),
  }));

describe('boot recovery from a backup', () => {
  let A: TestNode;
  let B: TestNode;
  let words: string;
  let backups: string;
  /** Where the backup written under load is kept for its restore. */
  const keptAside = join(tempDataDir(), 'kept');
  let opsKey: { key_id: string; secret: string };
  let atRest: Record<string, unknown>;
  let masterKeyOfA: Buffer;
  /** The payment the first recovered node made to Bob. */
  let continued: string;

  beforeAll(async () => {
    [A, B] = await Promise.all([start(), start()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false, contact_status_enabled: false });
    await connect(A, B, { creditAtoB: '100000', creditBtoA: '100000' });
    await ok(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount: '12.5', currency: 'VWL', description: 'March rent' });
    await ok(B, 'POST', '/api/v1/requests', { contact: 'Alice', amount: '3', currency: 'VWL', description: 'Lunch' });
    await ok(A, 'POST', '/api/v1/payback-methods', { type: 'bank_wire', label: 'Main account', currency: 'EUR', fields: SEPA });
    opsKey = await ok(A, 'POST', '/api/v1/keys', { name: 'ops', permissions: ['backup:read', 'wallet:read'] });
    words = A.node.identity.revealMnemonic();
    backups = join(A.dataDir, 'backups');
    masterKeyOfA = readFileSync(join(A.dataDir, 'master.key'));
  });

  it('a backup written while 100 payments run verifies', async () => {
    const fromA: Promise<string>[] = [];
    const fromB: Promise<string>[] = [];
    let backup: Promise<any> | null = null;
    for (let group = 0; group < 10; group++) {
      const batch: Promise<string>[] = [];
      for (let i = 0; i < 10; i++) {
        const p = i < 7 ? send(A, 'Bob', '1.5') : send(B, 'Alice', '0.25');
        (i < 7 ? fromA : fromB).push(p);
        batch.push(p);
      }
      if (group === 3) backup = ok(A, 'POST', '/api/v1/backup/create', { name: 'under_load' });
      await Promise.all(batch);
    }
    const made = await backup!;
    expect(made.filename).toBe('under_load.node.enc');
    const outcomesA = await settledAll(A, await Promise.all(fromA), B, 60_000);
    const outcomesB = await settledAll(B, await Promise.all(fromB), A, 60_000);
    expect([...outcomesA, ...outcomesB].every((o) => o.status === 'completed')).toBe(true);
    expect(await ok(A, 'POST', '/api/v1/backup/verify', { filename: 'under_load.node.enc' })).toMatchObject({ valid: true, version: 3 });
    // Kept aside, as an operator keeps a backup they mean to restore: the node's directory keeps only the newest three
    // (Document 1), and the backups written at the stops below would prune this one there.
    mkdirSync(keptAside, { recursive: true, mode: 0o700 });
    copyFileSync(join(backups, 'under_load.node.enc'), join(keptAside, 'under_load.node.enc'));
  }, 120_000);

  it('a backup at rest brings back exactly the node it was taken from, into a new directory', async () => {
    atRest = await stateOf(A);
    expect((atRest.transactions as any[]).length).toBe(100);
    const trustedKeys = `${'ab'.repeat(32)} example-author\n`;
    writeFileSync(join(A.dataDir, 'trusted-plugin-keys'), trustedKeys, { mode: 0o600 });
    await ok(A, 'POST', '/api/v1/backup/create', { name: 'at_rest' });
    await A.stop();

    const R = await start({ env: { RESTORE: words, NODE_BOOT_RECOVERY_BACKUP: 'at_rest.node.enc', NODE_BACKUP_DIR: backups } });
    expect(R.dataDir).not.toBe(A.dataDir);
    expect(R.node.identity.pubkeyHash).toBe(A.node.identity.pubkeyHash);
    // A new master.key: the secrets in the database are sealed under keys derived from the seed phrase alone.
    expect(readFileSync(join(R.dataDir, 'master.key')).equals(masterKeyOfA)).toBe(false);
    expect(await stateOf(R)).toEqual(atRest);
    // The keys the operator trusts to sign plugins are state too.
    expect(readFileSync(join(R.dataDir, 'trusted-plugin-keys'), 'utf8')).toBe(trustedKeys);
    const ops = clientWithKey(R.node, opsKey.key_id, opsKey.secret);
    expect((await ops.get('/api/v1/backup/list')).status).toBe(200);

    // Its chain with Bob is the one Bob holds: the next payment just continues it.
    const txid = await send(R, 'Bob', '2');
    expect((await settled(R, txid, B)).status).toBe('completed');
    continued = txid;
    await R.stop();
  }, 60_000);

  it('the backup written under load recovers a consistent node: same identity, contacts, requests, methods and keys', async () => {
    const file = join(tempDir('seed-'), 'seed.txt');
    writeFileSync(file, `${words}\n`, { mode: 0o600 });
    const R = await start({ env: { RESTORE_FILE: file, NODE_BOOT_RECOVERY_BACKUP: 'under_load.node.enc', NODE_BACKUP_DIR: keptAside } });
    const state = await stateOf(R);
    expect((state.info as any).public_key_hash).toBe((atRest.info as any).public_key_hash);
    expect(stableContacts(state.contacts)).toEqual(stableContacts(atRest.contacts));
    expect(state.requests).toEqual(atRest.requests);
    expect(state.payback).toEqual(atRest.payback);
    expect(state.keys).toEqual(atRest.keys);
    expect(state.settings).toEqual(atRest.settings);

    // What was in flight at the snapshot is finished with Bob again; then every payment the node knows is one Alice
    // made, and its balance is exactly the sum of its completed payments.
    const FINAL = new Set(['completed', 'rejected', 'cancelled', 'failed']);
    await settledAll(R, (await allTransactions(R)).map((t) => t.txid as string), undefined, 30_000);
    // Bob's chain holds one payment more than the backup: the one the node recovered above made. A sync (it may have run
    // by itself already) brings it here, so the node ends with Bob's chain, whole.
    await ok(R, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    const rows = await settledAll(R, (await allTransactions(R)).map((t) => t.txid as string), undefined, 30_000);
    expect(rows.map((r) => r.txid)).toContain(continued);
    expect(rows.every((r) => FINAL.has(r.status))).toBe(true);
    const known = new Map((atRest.transactions as any[]).map((t) => [t.txid, t]));
    known.set(continued, { txid: continued, amount: '2', type: 'sent' });
    for (const r of rows) expect({ txid: r.txid, amount: r.amount, type: r.type }).toEqual({ txid: r.txid, amount: known.get(r.txid)?.amount, type: known.get(r.txid)?.type });
    const minor = (s: string): bigint => {
      const [w, f = ''] = s.split('.');
      return BigInt(w!) * 100_000_000n + BigInt(f.padEnd(8, '0'));
    };
    const completed = rows.filter((r) => r.status === 'completed');
    const sent = completed.filter((r) => r.type === 'sent').reduce((s, r) => s + minor(r.amount), 0n);
    const received = completed.filter((r) => r.type === 'received').reduce((s, r) => s + minor(r.amount), 0n);
    const balance = ((await ok(R, 'GET', '/api/v1/wallet/balance')).balances as any[]).find((b) => b.pubkey_hash === hashOf(B));
    expect([minor(balance.sent), minor(balance.received)]).toEqual([sent, received]);
    await R.stop();
  }, 60_000);

  describe('refusals stop the start and change nothing', () => {
    const listing = (dir: string): Record<string, string> =>
      Object.fromEntries(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name)).toString('base64')]));

    const refused = async (env: Record<string, string>, message: RegExp, dataDir = tempDataDir()): Promise<void> => {
      temps.push(dataDir);
      const before = listing(dataDir);
      await expect(startTestNode({ dataDir, env })).rejects.toThrow(message);
      const after = listing(dataDir);
      // The lock file is the one thing a refused start may leave in a new directory.
      delete after[join(dataDir, 'node.lock')];
      delete before[join(dataDir, 'node.lock')];
      expect(after).toEqual(before);
    };

    it('a directory that already holds a node', async () => {
      await refused({ RESTORE: words, NODE_BOOT_RECOVERY_BACKUP: 'at_rest.node.enc', NODE_BACKUP_DIR: backups }, /boot recovery \(backups\): the data directory .* is not empty/, A.dataDir);
    });

    it('a changed byte anywhere in the file', async () => {
      const bytes = readFileSync(join(backups, 'at_rest.node.enc'));
      for (const at of [3, 20, Math.floor(bytes.length / 2), bytes.length - 1]) {
        const dir = tempDir('flipped-');
        const copy = Buffer.from(bytes);
        copy[at] = copy[at]! ^ 0x80;
        writeFileSync(join(dir, 'at_rest.node.enc'), copy);
        await refused({ RESTORE: words, NODE_BOOT_RECOVERY_BACKUP: 'at_rest.node.enc', NODE_BACKUP_DIR: dir }, /at_rest\.node\.enc cannot be restored: .*Nothing was changed/);
      }
    });

    it("another node's seed phrase, or none", async () => {
      await refused({ RESTORE: generateMnemonic(), NODE_BOOT_RECOVERY_BACKUP: 'at_rest.node.enc', NODE_BACKUP_DIR: backups }, /it is a backup of another node/);
      await refused({ NODE_BOOT_RECOVERY_BACKUP: 'at_rest.node.enc', NODE_BACKUP_DIR: backups }, /derived from the node's seed phrase: give the 24 words with RESTORE_FILE/);
    });

    it('a name that is not a bare backup file name, or no such file', async () => {
      for (const name of ['../node.db', `${backups}/at_rest.node.enc`, 'at_rest', 'at_rest.node.enc/..']) {
        await refused({ RESTORE: words, NODE_BOOT_RECOVERY_BACKUP: name, NODE_BACKUP_DIR: backups }, /is not a backup file name/);
      }
      await refused({ RESTORE: words, NODE_BOOT_RECOVERY_BACKUP: 'gone.node.enc', NODE_BACKUP_DIR: backups }, /there is no backup gone\.node\.enc in/);
    });

    it('an older format', async () => {
      const bytes = readFileSync(join(backups, 'at_rest.node.enc'));
      const end = 12 + bytes.readUInt32BE(8);
      const header = Buffer.from(JSON.stringify({ ...JSON.parse(bytes.subarray(12, end).toString('utf8')), format: 2 }));
      const length = Buffer.alloc(4);
      length.writeUInt32BE(header.length);
      const dir = tempDir('older-');
      writeFileSync(join(dir, 'old.node.enc'), Buffer.concat([bytes.subarray(0, 8), length, header, bytes.subarray(end)]));
      await refused({ RESTORE: words, NODE_BOOT_RECOVERY_BACKUP: 'old.node.enc', NODE_BACKUP_DIR: dir }, /format version 2 is older than 3/);
    });
  });
});
