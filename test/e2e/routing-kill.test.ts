/**
 * kill -9 of a relay at random points of 50 routed payments, then restart on the same data directory and port: every
 * payment ends completed on all its legs or on none, nothing is paid twice, and the books balance on every node. The
 * relay B is a real `wallet-node` process (dist/, built by CI before the tests); the payer A and the destination D run
 * in this process, so a kill lands anywhere: in discovery, between a leg's lock and its prepare downstream, between the
 * destination's fulfilment and its chain entry, while a fulfilment travels back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJsonClient, freePort, healthy, kill9, requireBuild, signedCall, spawnDaemon, type Daemon, type SignedCall } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, legsOf, netOf, ok, rng, waitFor, withFee } from '../integration/routing-support.js';

const SEED = Number(process.env.ROUTING_SEED ?? 911);
const SETTINGS = { contact_status_enabled: false, hop_budget_randomized: false, rate_limit_enabled: false, p2p_rate_limit_per_minute: 100_000, p2p_expiration: 60 };

describe(`kill -9 of a relay mid-payment (seed ${SEED})`, () => {
  let A: TestNode;
  let D: TestNode;
  let dataDir = '';
  let port = 0;
  let daemon: Daemon | null = null;
  let b: SignedCall;
  let bHash = '';
  const address = (): string => `http://127.0.0.1:${port}`;
  const previous = process.env.NODE_PEER_RETRY_BASE_MS;

  const startB = async (): Promise<void> => {
    daemon = spawnDaemon({ NODE_DATA_DIR: dataDir, NODE_PORT: String(port), NODE_PEER_RETRY_BASE_MS: '20' });
    await healthy(daemon, port);
    b = signedCall(cliJsonClient(dataDir));
  };

  /** The daemon B and a test node become contacts with a VWL line of 10,000 each way. */
  async function link(t: TestNode, name: string): Promise<void> {
    await b('POST', '/api/v1/contacts', { address: t.node.baseUrl, name, credit_limit: '10000', currency: 'VWL' });
    await waitFor(() => call(t, 'GET', `/api/v1/contacts/${bHash}/currencies`), (r) => r.status === 200 && r.body.data.currencies?.some((c: any) => c.status === 'pending'), `request on ${name}`);
    await ok(t, 'POST', `/api/v1/contacts/${bHash}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '10000' }],
      is_new_contact: true,
      contact_address: address(),
      contact_name: 'Relay',
    });
    await waitFor(() => b('GET', `/api/v1/contacts/${t.node.identity.pubkeyHash}/currencies`), (d) => d.currencies.some((c: any) => c.status === 'accepted'), `acceptance by ${name}`);
  }

  beforeAll(async () => {
    requireBuild();
    process.env.NODE_PEER_RETRY_BASE_MS = '20';
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-node-relay-'));
    port = await freePort();
    await startB();
    bHash = (await b('GET', '/api/v1/wallet/info')).public_key_hash;
    [A, D] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, D]) await ok(t, 'PUT', '/api/v1/system/settings', { ...SETTINGS, max_fee: 10 });
    await b('PUT', '/api/v1/system/settings', SETTINGS);
    await link(A, 'Payer');
    await link(D, 'Payee');
    await b('PUT', `/api/v1/contacts/${A.node.identity.pubkeyHash}`, { currency: 'VWL', fee_percent: '0.75' });
  }, 120_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
    else process.env.NODE_PEER_RETRY_BASE_MS = previous;
    if (daemon) await kill9(daemon);
    await Promise.all([A, D].map((t) => t?.destroy()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('50 payments, B killed at random points: all legs or none, exact books everywhere', async () => {
    const random = rng(SEED);
    const sent: { hash: string; amount: Decimal }[] = [];
    let refused = 0;
    for (let wave = 0; wave < 5; wave++) {
      const amounts = Array.from({ length: 10 }, () => new Decimal(1 + Math.floor(random() * 5000)).div(100));
      const calls = Promise.all(
        amounts.map((amount) => call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: amount.toFixed(), currency: 'VWL' }).then((r) => ({ r, amount }))),
      );
      // Odd waves: B dies during discovery. Even waves: once the routes are chosen (the sends answer when the first
      // legs leave A), while the legs are locked, passed on, fulfilled and settled.
      const answers = wave % 2 === 0 ? await calls : null;
      await new Promise((r) => setTimeout(r, Math.floor(random() * (answers ? 40 : 60))));
      await kill9(daemon!);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 300)));
      await startB();
      for (const { r, amount } of answers ?? (await calls)) {
        if (r.status === 200) sent.push({ hash: r.body.data.p2p_hash, amount });
        else {
          expect(r.body.error.code).toBe('no_route');
          refused++;
        }
      }
    }
    const FINAL = new Set(['completed', 'cancelled', 'rejected', 'failed']);
    const legsAtB = async (hash: string): Promise<any[]> =>
      ((await b('GET', '/api/v1/wallet/transactions', undefined, { limit: 100 })).transactions as any[]).filter((l) => l.memo === hash);
    let fees = new Decimal(0);
    let delivered = new Decimal(0);
    let completed = 0;
    for (const s of sent) {
      const a = await waitFor(() => legsOf(A, s.hash), (l) => l.length === 0 || FINAL.has(l[0].status), `first leg of ${s.hash.slice(0, 8)} final`, 60_000);
      const atB = await waitFor(() => legsAtB(s.hash), (l) => l.every((x) => FINAL.has(x.status)), `legs at B of ${s.hash.slice(0, 8)} final`, 60_000);
      const d = await waitFor(() => legsOf(D, s.hash), (l) => l.every((x) => FINAL.has(x.status)), `leg at D of ${s.hash.slice(0, 8)} final`, 60_000);
      if (a[0]?.status === 'completed') {
        completed++;
        expect(atB).toHaveLength(2);
        for (const l of [...a, ...atB, ...d]) expect(l.status).toBe('completed');
        expect(d).toHaveLength(1);
        expect(d[0].amount).toBe(s.amount.toFixed());
        expect(a[0].amount).toBe(withFee(s.amount, '0.75').toFixed());
        fees = fees.plus(new Decimal(a[0].amount).minus(s.amount));
        delivered = delivered.plus(s.amount);
      } else {
        for (const l of [...a, ...atB, ...d]) expect(l.status).not.toBe('completed');
      }
    }
    console.log(`routing kill -9: seed ${SEED}: ${sent.length} routed (${refused} found no route while B was down), ${completed} completed on every leg, ${sent.length - completed} on none`);
    const netB = ((await b('GET', '/api/v1/wallet/balance')).balances as any[]).reduce((sum: Decimal, r: any) => sum.plus(r.net_balance), new Decimal(0));
    const [netA, netD] = await Promise.all([netOf(A), netOf(D)]);
    expect(netB.eq(fees)).toBe(true);
    expect(netD.eq(delivered)).toBe(true);
    expect(netA.plus(netB).plus(netD).isZero()).toBe(true);
  }, 300_000);
});
