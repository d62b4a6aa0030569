/**
 * A node whose disk fills while it pays (issue 28, ARCHITECTURE rule 9): a real `wallet-node` process (dist/, built by
 * CI before the tests) on a small tmpfs of its own pays a contact node running in this process; a file then fills the
 * tmpfs. While it is full the node answers writes with 507 `insufficient_storage`, says `degraded` on /healthz, keeps
 * serving reads and does not exit; once the file is gone it takes payments again within seconds, without a restart,
 * and nothing was lost or doubled: every accepted payment completed once on both sides, the balances are the sums, and
 * verify-chain is clean on both.
 *
 * It runs on a real tmpfs, and with the node's test seam instead (NODE_TEST_STORAGE_FAULT_FILE: while that file
 * exists, every database write of the node fails with SQLITE_FULL and every atomic file write with ENOSPC), which
 * reaches the write sites a real disk may spare (a write that fits in pages the WAL already holds). Mounting needs root
 * (CI runs as root); where it is refused, the first run uses the seam too, so every run asserts either way. The seam
 * also makes the disk read-only (SQLITE_READONLY, EROFS) and failing (SQLITE_IOERR_WRITE, EIO): a tmpfs cannot be
 * remounted read-only under a node that holds its files open for writing.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../../kernel/cli/rest-client.js';
import { cliJsonClient, connectToTestNode, freePort, healthy, kill9, requireBuild, signedCall, spawnDaemon, until, type Daemon, type SignedCall } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { ok } from '../support/api.js';

type Answer = { status: number; body: { success: boolean; data?: any; error?: any } };

/** Mounts a tmpfs of `sizeMiB` at `dir`; false where the system refuses (not root, no CAP_SYS_ADMIN). */
function mountTmpfs(dir: string, sizeMiB: number): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=700`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes `file` until the file system refuses with ENOSPC: the disk is then full to the last page. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 0x55);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const CASES = [
  { kind: 'tmpfs', fault: 'full', reason: 'disk full' },
  { kind: 'seam', fault: 'full', reason: 'disk full' },
  { kind: 'seam', fault: 'readonly', reason: 'read-only file system' },
  { kind: 'seam', fault: 'eio', reason: 'I/O error' },
] as const;

describe.each(CASES)('a failing disk ($reason, $kind): reported, survived, recovered from without a restart', ({ kind, fault, reason }) => {
  let root = '';
  let mnt = '';
  let mounted = false;
  let dataDir = '';
  let port = 0;
  let daemon: Daemon;
  let client: SignedClient;
  let a: SignedCall;
  let B: TestNode;
  const filler = (): string => join(mnt, 'filler');
  const faultFlag = (): string => join(root, 'storage-fault');

  const onA = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await client.request<Answer['body']>(method, path, body === undefined ? {} : { body });
    return { status: res.status, body: res.body };
  };
  const health = async (): Promise<{ status: number; data: any }> => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return { status: res.status, data: ((await res.json()) as { data: any }).data };
  };
  const fill = (): void => (mounted ? fillDisk(filler()) : writeFileSync(faultFlag(), fault));
  const free = (): void => rmSync(mounted ? filler() : faultFlag(), { force: true });
  const send = (amount: string): Promise<Answer> => onA('POST', '/api/v1/wallet/send', { address: B.node.baseUrl, amount, currency: 'VWL' });
  const statusesOn = async (on: (path: string) => Promise<any>, txids: readonly string[]): Promise<Map<string, string>> => {
    const page = await on('/api/v1/wallet/transactions?limit=100');
    const wanted = new Set(txids);
    return new Map((page.transactions as any[]).filter((t) => wanted.has(t.txid)).map((t) => [t.txid as string, t.status as string]));
  };
  const onAData = (path: string): Promise<any> => a('GET', path);
  const onBData = (path: string): Promise<any> => ok(B, 'GET', path);
  const allCompleted = async (txids: readonly string[]): Promise<void> => {
    for (const [who, on] of [['A', onAData], ['B', onBData]] as const) {
      await until(`${txids.length} payments completed on ${who}`, async () => {
        const s = await statusesOn(on, txids);
        return txids.every((id) => s.get(id) === 'completed') ? true : null;
      }, 20_000);
    }
  };

  beforeAll(async () => {
    requireBuild();
    root = mkdtempSync(join(tmpdir(), 'wallet-node-disk-'));
    mnt = join(root, 'mnt');
    mkdirSync(mnt);
    // 24 MiB: the node's files take a few; the filler takes the rest.
    mounted = kind === 'tmpfs' && mountTmpfs(mnt, 24);
    dataDir = join(mnt, 'data');
    port = await freePort();
    daemon = spawnDaemon({
      NODE_DATA_DIR: dataDir,
      NODE_PORT: String(port),
      NODE_PEER_RETRY_BASE_MS: '20',
      ...(mounted ? {} : { NODE_TEST_STORAGE_FAULT_FILE: faultFlag() }),
    });
    await healthy(daemon, port);
    client = cliJsonClient(dataDir);
    a = signedCall(client);
    B = await startTestNode();
    await a('PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    await connectToTestNode(a, `http://127.0.0.1:${port}`, B);
  }, 60_000);

  afterAll(async () => {
    if (daemon) await kill9(daemon);
    await B?.destroy();
    if (mounted) execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  });

  it('payments, the disk fails, payments again: clear errors, no exit, exact books', async () => {
    console.log(`disk-full test: ${mounted ? 'a real tmpfs filled with a file' : `the storage fault seam, ${fault}${kind === 'tmpfs' ? ' (mount refused)' : ''}`}`);
    const accepted: { txid: string; amount: Decimal }[] = [];
    const pay = async (amount: string): Promise<Answer> => {
      const res = await send(amount);
      if (res.status === 200) accepted.push({ txid: res.body.data.txid, amount: new Decimal(amount) });
      return res;
    };
    for (const amount of ['1', '2.5', '3']) expect((await pay(amount)).status).toBe(200);
    await allCompleted(accepted.map((p) => p.txid));
    expect(await health()).toMatchObject({ status: 200, data: { status: 'ok' } });

    // The disk fills while a burst of payments is under way: each is accepted or refused whole, and every accepted one
    // completes once the disk is back, including those whose settlement the full disk interrupted.
    const burst = Promise.all(['0.01', '0.02', '0.03', '0.04', '0.05', '0.06', '0.07', '0.08'].map(pay));
    await new Promise((r) => setTimeout(r, 30));
    fill();
    const burstAnswers = await burst;
    for (const res of burstAnswers) expect([200, 507]).toContain(res.status);
    // The contact pays this node meanwhile: refused while the disk fails (chain_busy while this node's own payment on
    // the chain is held, else 507 between the nodes: ledger-disk.test.ts), retried, completed once the disk is back.
    const incoming = (await ok(B, 'POST', '/api/v1/wallet/send', { address: `http://127.0.0.1:${port}`, amount: '0.5', currency: 'VWL' })).txid as string;
    const whileFull: Answer[] = [];
    for (const amount of ['4', '5', '6', '7']) whileFull.push(await pay(amount));
    // Every write is refused; none is a 500, none half-done (checked by the books below).
    for (const res of whileFull) {
      expect(res.status).toBe(507);
      expect(res.body.error).toMatchObject({ code: 'insufficient_storage' });
      expect(res.body.error).toMatchObject({ reason });
      expect(res.body.error.message).toContain(`(${reason})`);
    }
    const h = await health();
    expect(h.status).toBe(200);
    expect(h.data).toMatchObject({ status: 'degraded', reason });
    // Reads are still served, and the spent nonces of all these requests wait in memory for the disk.
    expect((await onA('GET', '/api/v1/wallet/balance')).status).toBe(200);
    const settings = await onA('PUT', '/api/v1/system/settings', { log_level: 'DEBUG' });
    expect(settings.status).toBe(507);
    // The group commits and the probe have failed and retried meanwhile; the process is still there.
    await new Promise((r) => setTimeout(r, 1500));
    expect(daemon.proc.exitCode).toBeNull();
    expect(daemon.proc.signalCode).toBeNull();
    expect((await health()).data.status).toBe('degraded');

    free();
    const back = Date.now();
    await until('healthz ok again', async () => ((await health()).data.status === 'ok' ? true : null), 10_000);
    const first = await until('a payment accepted again', async () => ((await pay('8')).status === 200 ? true : null), 10_000);
    expect(first).toBe(true);
    const recoveredMs = Date.now() - back;
    expect(recoveredMs).toBeLessThan(10_000);
    for (const amount of ['9', '10.25']) expect((await pay(amount)).status).toBe(200);
    await allCompleted([...accepted.map((p) => p.txid), incoming]);
    expect((await onA('PUT', '/api/v1/system/settings', { log_level: 'DEBUG' })).status).toBe(200);

    // Nothing lost or doubled: each accepted payment once on each side, and nothing else.
    const txidsOn = async (on: (path: string) => Promise<any>): Promise<string[]> =>
      ((await on('/api/v1/wallet/transactions?limit=100')).transactions as any[]).map((t) => t.txid as string).sort();
    const expected = [...accepted.map((p) => p.txid), incoming].sort();
    expect(await txidsOn(onAData)).toEqual(expected);
    expect(await txidsOn(onBData)).toEqual(expected);
    const total = accepted.reduce((sum, p) => sum.plus(p.amount), new Decimal(0));
    const rowOn = async (on: (path: string) => Promise<any>, peer: string): Promise<any> =>
      ((await on('/api/v1/wallet/balance')).balances as any[]).find((r) => r.pubkey_hash === peer);
    const aHash = (await a('GET', '/api/v1/wallet/info')).public_key_hash as string;
    expect(await rowOn(onAData, B.node.identity.pubkeyHash)).toMatchObject({ sent: total.toFixed(), received: '0.5' });
    expect(await rowOn(onBData, aHash)).toMatchObject({ received: total.toFixed(), sent: '0.5' });
    for (const on of [onAData, onBData]) expect(await on('/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
    const burstAccepted = burstAnswers.filter((r) => r.status === 200).length;
    console.log(
      `disk-full test: ${accepted.length} payments settled (${burstAccepted} of a burst of ${burstAnswers.length} while the disk filled), ` +
        `${whileFull.length} refused with 507 while failing, accepted again ${recoveredMs} ms after space returned; ` +
        `${daemon.output().split('payment attempt held').length - 1} settlement(s) held by the disk and resumed`,
    );

    // And it still stops cleanly.
    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
  }, 90_000);
});
