/**
 * kill -9 of a relay in the middle of split payments: over the diamond A-B-D, A-C-D (each route carries 60), A pays D
 * 100 split in two parts while the relay B, a real `wallet-node` process (dist/), is killed at a random point and
 * restarted on the same data directory and port. Every payment ends completed on every leg of both parts or on none
 * (the destination fulfils no part before all arrived, and releases the part it holds when the other fails), the books
 * move by exactly the payment and its fee or not at all, and every chain verifies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJsonClient, connectToTestNode, freePort, healthy, kill9, requireBuild, signedCall, spawnDaemon, type Daemon, type SignedCall } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { send, settled } from '../integration/ledger-support.js';
import { call, connect, hashOf, legsOf, netOf, ok, rng, waitFor } from '../integration/routing-support.js';

const SEED = Number(process.env.ROUTING_SEED ?? 1733);
const ROUNDS = 10;
const SETTINGS = { contact_status_enabled: false, hop_budget_randomized: false, rate_limit_enabled: false, p2p_rate_limit_per_minute: 100_000, p2p_expiration: 60, max_fee: 5 };
/** A part held at D whose other part is lost is released within this (the legs' delivery window, test mode). */
const LEG_WINDOW_MS = '20000';
const FINAL = new Set(['completed', 'cancelled', 'rejected', 'failed']);

describe(`kill -9 of a relay mid split payment (seed ${SEED})`, () => {
  let A: TestNode, C: TestNode, D: TestNode;
  let dataDir = '';
  let port = 0;
  let daemon: Daemon | null = null;
  let b: SignedCall;
  const address = (): string => `http://127.0.0.1:${port}`;
  const saved = { retry: process.env.NODE_PEER_RETRY_BASE_MS, window: process.env.NODE_ROUTE_LEG_WINDOW_MS };

  const startB = async (): Promise<void> => {
    daemon = spawnDaemon({ NODE_DATA_DIR: dataDir, NODE_PORT: String(port), NODE_PEER_RETRY_BASE_MS: '20', NODE_ROUTE_LEG_WINDOW_MS: LEG_WINDOW_MS });
    await healthy(daemon, port);
    b = signedCall(cliJsonClient(dataDir));
  };
  const netOfB = async (): Promise<Decimal> => ((await b('GET', '/api/v1/wallet/balance')).balances as any[]).reduce((sum: Decimal, r: any) => sum.plus(r.net_balance), new Decimal(0));
  const nets = async (): Promise<Decimal[]> => [await netOf(A), await netOfB(), await netOf(C), await netOf(D)];
  const legsAtB = async (hash: string): Promise<any[]> => ((await b('GET', '/api/v1/wallet/transactions', undefined, { limit: 100 })).transactions as any[]).filter((l) => l.memo === hash);

  beforeAll(async () => {
    requireBuild();
    process.env.NODE_PEER_RETRY_BASE_MS = '20';
    process.env.NODE_ROUTE_LEG_WINDOW_MS = LEG_WINDOW_MS;
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-node-split-relay-'));
    port = await freePort();
    await startB();
    [A, C, D] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    for (const t of [A, C, D]) await ok(t, 'PUT', '/api/v1/system/settings', SETTINGS);
    await b('PUT', '/api/v1/system/settings', SETTINGS);
    // B extends 60 to A (the route through B carries 60, less B's 1% fee), D extends 60 to C; every other line is wide.
    await connectToTestNode(b, address(), A, { name: 'Payer', daemonName: 'Relay', daemonExtends: '60', nodeExtends: '100000' });
    await connectToTestNode(b, address(), D, { name: 'Payee', daemonName: 'Relay', daemonExtends: '100000', nodeExtends: '100000' });
    await connect(A, C, { creditAtoB: '100000', creditBtoA: '100000', nameOfB: 'nC', nameOfA: 'nA' });
    await connect(C, D, { creditAtoB: '100000', creditBtoA: '60', nameOfB: 'nD', nameOfA: 'nC' });
    await b('PUT', `/api/v1/contacts/${hashOf(A)}`, { currency: 'VWL', fee_percent: '1' });
  }, 180_000);
  afterAll(async () => {
    for (const [key, value] of [['NODE_PEER_RETRY_BASE_MS', saved.retry], ['NODE_ROUTE_LEG_WINDOW_MS', saved.window]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    if (daemon) await kill9(daemon);
    await Promise.all([A, C, D].map((t) => t?.destroy()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every leg of a part, on every node, once all are final. */
  const partLegs = async (hash: string): Promise<any[]> => {
    const final = (legs: any[]): boolean => legs.every((l) => FINAL.has(l.status));
    const all = await Promise.all([
      ...[A, C, D].map((t) => waitFor(() => legsOf(t, hash), final, `legs of ${hash.slice(0, 8)} final`, 90_000)),
      waitFor(() => legsAtB(hash), final, `legs at B of ${hash.slice(0, 8)} final`, 90_000),
    ]);
    return all.flat();
  };

  /** Pays back what a round moved over the two narrow lines (B's to A, D's to C), so that the next round splits again. */
  const reopen = async (): Promise<void> => {
    const owedByA = new Decimal(((await b('GET', '/api/v1/wallet/balance')).balances as any[]).find((r) => r.pubkey_hash === hashOf(A))?.net_balance ?? 0);
    if (owedByA.gt(0)) {
      const { txid } = await b('POST', '/api/v1/wallet/send', { address: A.node.baseUrl, amount: owedByA.toFixed(), currency: 'VWL' });
      await waitFor(() => b('GET', `/api/v1/wallet/transactions/${txid}`), (r) => r.transaction.status === 'completed', 'B paid A back');
    }
    const owedByC = (await ok(D, 'GET', '/api/v1/wallet/balance')).balances.find((r: any) => r.pubkey_hash === hashOf(C))?.net_balance ?? '0';
    if (new Decimal(owedByC).gt(0)) await settled(D, await send(D, C.node.baseUrl, owedByC), C);
  };

  /** One split payment of 100 and its outcome: whether it moved (every leg of both parts completed) or was refused. */
  const pay = async (killAfterMs: number | null): Promise<{ moved: boolean; refused: boolean; ms: number }> => {
    const before = await nets();
    const started = Date.now();
    let answered = 0;
    const paying = call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '100', currency: 'VWL', allow_split: true }).finally(() => (answered = Date.now() - started));
    if (killAfterMs !== null) {
      await new Promise((r) => setTimeout(r, killAfterMs));
      await kill9(daemon!);
      await new Promise((r) => setTimeout(r, 100));
      await startB();
    }
    const res = await paying;
    let moved = false;
    if (res.status !== 200) expect(res.body.error.code).toBe('no_route');
    else {
      const parts = res.body.data.split.parts as any[];
      expect(parts).toHaveLength(2);
      const finalLegs = async (): Promise<any[]> => (await Promise.all(parts.map((p) => partLegs(p.p2p_hash)))).flat();
      let legs = await finalLegs();
      moved = legs.some((l) => l.status === 'completed');
      // All or none: once one leg of one part completed, every leg of both parts did. A node's legs can all be final
      // while a leg of the same part has yet to reach another node: wait until the eight are there.
      if (moved) {
        legs = await waitFor(finalLegs, (l) => l.length >= 8, 'the eight legs of both parts', 90_000);
        expect(legs).toHaveLength(8);
        for (const l of legs) expect(l.status).toBe('completed');
      }
    }
    const after = await nets();
    expect(after.map((n, i) => n.minus(before[i]!).toFixed())).toEqual(moved ? ['-100.4', '0.4', '0', '100'] : ['0', '0', '0', '0']);
    await reopen();
    return { moved, refused: res.status !== 200, ms: answered };
  };

  it(`${ROUNDS} split payments of 100, B killed at random points: every part or none, exact books, clean chains`, async () => {
    const random = rng(SEED);
    // Unharmed, a split payment's send answers after `whole` ms (its probe, its parts' searches, their first legs
    // out); the kills land across that and a little after, while the legs lock and settle.
    const { moved, ms: whole } = await pay(null);
    expect(moved).toBe(true);
    let completed = 0;
    let refused = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const outcome = await pay(Math.floor(random() * whole * 1.2));
      if (outcome.moved) completed++;
      if (outcome.refused) refused++;
    }
    console.log(`split kill -9: seed ${SEED}: unharmed split send answered in ${whole} ms; ${ROUNDS} split payments of 100, ${completed} completed on every leg of both parts, ${ROUNDS - completed - refused} on none, ${refused} refused (no route while B was down)`);
    for (const t of [A, C, D]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
    expect(await b('GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 600_000);
});
