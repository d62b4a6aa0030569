/**
 * Routed payments between real nodes on loopback, through the REST API: discovery along a line of credit, fees that
 * compound hop by hop, hash-locked legs that settle on every leg or none, exact balances on every node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, dec, feeEarnings, hashOf, legsOf, legsSettled, line, netOf, ok, routedSend, setFee, waitFor, withFee } from './routing-support.js';

describe('routing along a line A-B-C-D-E-F', () => {
  let nodes: TestNode[] = [];
  const fees = ['0', '1', '2', '0.5', '1.25', '0'];

  beforeAll(async () => {
    nodes = await Promise.all(Array.from({ length: 6 }, () => startTestNode()));
    for (const t of nodes) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 10 });
    await line(nodes, { credit: '1000' });
    // Each relay charges its fee on the line toward its upstream (the node before it on the line).
    for (let i = 1; i < nodes.length - 1; i++) await setFee(nodes[i]!, nodes[i - 1]!, fees[i]!);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((t) => t.destroy()));
  });

  it('A pays D over B and C: the fees compound, every balance is exact, each relay nets exactly its fee', async () => {
    const [A, B, C, D] = nodes as [TestNode, TestNode, TestNode, TestNode];
    const before = await Promise.all(nodes.map((t) => netOf(t)));
    const sent = await routedSend(A, D, '100', { description: 'dinner for four' });
    expect(sent).toMatchObject({ status: 'sent', type: 'p2p', amount: '100', recipient_address: D.node.baseUrl });
    const hash = sent.p2p_hash as string;
    const atC = withFee(dec(100), fees[2]!);
    const atB = withFee(atC, fees[1]!);
    expect(sent.total).toBe(atB.toFixed());
    const legs = await legsSettled([A, B, C, D], hash);
    for (const l of legs.flat()) expect(l.status).toBe('completed');
    expect(legs.map((l) => l.length)).toEqual([1, 2, 2, 1]);
    expect(legs[0]![0]).toMatchObject({ type: 'sent', amount: atB.toFixed(), description: 'dinner for four', txid: sent.txid });
    expect(legs[3]![0]).toMatchObject({ type: 'received', amount: '100' });
    await waitFor(async () => (await legsOf(D, hash))[0].description, (d) => d === 'dinner for four', 'the description at the destination');
    for (const relayLegs of [legs[1]!, legs[2]!]) for (const l of relayLegs) expect(l).toMatchObject({ type: 'relay', description: null });

    const after = await Promise.all(nodes.map((t) => netOf(t)));
    const delta = after.map((a, i) => a.minus(before[i]!));
    expect(delta[0]!.toFixed()).toBe(atB.neg().toFixed());
    expect(delta[1]!.toFixed()).toBe(atB.minus(atC).toFixed());
    expect(delta[2]!.toFixed()).toBe(atC.minus(100).toFixed());
    expect(delta[3]!.toFixed()).toBe('100');
    expect(delta.reduce((s, d) => s.plus(d), dec(0)).isZero()).toBe(true);
    expect(await feeEarnings(B)).toBe(atB.minus(atC).toFixed());
    expect(await feeEarnings(C)).toBe(atC.minus(100).toFixed());
    // The same fee per day (the GUI's chart): one day, one currency.
    const today = new Date().toISOString().slice(0, 10);
    expect(await ok(B, 'GET', '/api/v1/wallet/fee-earnings')).toEqual({ days: [{ day: today, currency: 'VWL', amount: atB.minus(atC).toFixed() }], pagination: { total: 1, limit: 1000, offset: 0 } });
    expect((await ok(B, 'GET', '/api/v1/wallet/fee-earnings', undefined, { to: '2020-01-01' })).days).toEqual([]);
    // Both sides of every leg hold it as one countersigned chain entry.
    const hashA = hashOf(A);
    expect(legs[1]!.find((l) => l.counterparty_pubkey_hash === hashA)!.txid).toBe(legs[0]![0].txid);
  });

  it('A pays F over four relays: every node exact to 1e-8, each relay nets its fee, the nets sum to zero', async () => {
    const A = nodes[0]!;
    const F = nodes[5]!;
    const before = await Promise.all(nodes.map((t) => netOf(t)));
    const fees0 = await Promise.all(nodes.map((t) => feeEarnings(t)));
    const amount = dec('12.34567891');
    const sent = await routedSend(A, F, amount.toFixed());
    // What each node receives, from F back to B: compounding fees, each truncated to 1e-8.
    const incoming: Record<number, ReturnType<typeof dec>> = { 5: amount };
    for (let i = 4; i >= 1; i--) incoming[i] = withFee(incoming[i + 1]!, fees[i]!);
    expect(sent.total).toBe(incoming[1]!.toFixed());
    await legsSettled(nodes, sent.p2p_hash);
    const after = await Promise.all(nodes.map((t) => netOf(t)));
    const delta = after.map((a, i) => a.minus(before[i]!));
    expect(delta[0]!.toFixed()).toBe(incoming[1]!.neg().toFixed());
    for (let i = 1; i <= 4; i++) {
      const fee = incoming[i]!.minus(incoming[i + 1]!);
      expect(delta[i]!.toFixed()).toBe(fee.toFixed());
      expect(dec(await feeEarnings(nodes[i]!)).minus(fees0[i]!).toFixed()).toBe(fee.toFixed());
    }
    expect(delta[5]!.toFixed()).toBe(amount.toFixed());
    expect(delta.reduce((s, d) => s.plus(d), dec(0)).isZero()).toBe(true);
  });

  it('a routed payment is refunded over a route back to its originator, the return fees on top', async () => {
    const A = nodes[0]!;
    const F = nodes[5]!;
    await setFee(nodes[4]!, F, '0.5');
    const sent = await routedSend(A, F, '10');
    await legsSettled(nodes, sent.p2p_hash);
    const received = (await legsOf(F, sent.p2p_hash))[0];
    await waitFor(() => ok(F, 'GET', '/api/v1/p2p'), () => true, 'F up');
    const [netA, netF] = [await netOf(A), await netOf(F)];
    const part = await ok(F, 'POST', '/api/v1/wallet/refund', { txid: received.txid, amount: '4' });
    expect(part).toMatchObject({ status: 'partially_refunded', type: 'p2p', amount: '4', remaining: '6', total: withFee(dec(4), '0.5').toFixed() });
    const back = await legsSettled([...nodes].reverse(), part.p2p_hash);
    expect(back[5]![0]).toMatchObject({ type: 'received', amount: '4' });
    await waitFor(async () => (await legsOf(A, part.p2p_hash))[0].description, (d) => d === `refund of ${received.txid}`, 'the refund note at A');
    expect((await netOf(A)).minus(netA).toFixed()).toBe('4');
    expect((await netOf(F)).minus(netF).toFixed()).toBe(withFee(dec(4), '0.5').neg().toFixed());
    const over = await call(F, 'POST', '/api/v1/wallet/refund', { txid: received.txid, amount: '7' });
    expect(over.body.error.code).toBe('invalid_refund');
    const rest = await ok(F, 'POST', '/api/v1/wallet/refund', { txid: received.txid });
    expect(rest).toMatchObject({ status: 'fully_refunded', amount: '6', already_refunded: '4' });
    await legsSettled([...nodes].reverse(), rest.p2p_hash);
    await setFee(nodes[4]!, F, 0);
  });

  it('a fee below 1e-8 is charged as 1e-8, and the originator refuses a route above its maxFee', async () => {
    const [A, B, C] = nodes as [TestNode, TestNode, TestNode];
    // B charges A 1 % of 0.00000003 (truncated to 0): the minimum fee instead, a third of the amount.
    const refused = await call(A, 'POST', '/api/v1/wallet/send', { address: C.node.baseUrl, amount: '0.00000003', currency: 'VWL' });
    expect(refused.body.error?.code).toBe('no_route');
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 34 });
    const sent = await routedSend(A, C, '0.00000003');
    expect(sent.total).toBe('0.00000004');
    await legsSettled([A, B, C], sent.p2p_hash);
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 10 });
  });

  it('no route: the send fails with no_route once every branch answered (an unknown address, too few hops, too little credit)', async () => {
    const A = nodes[0]!;
    const F = nodes[5]!;
    const nowhere = await call(A, 'POST', '/api/v1/wallet/send', { address: 'http://127.0.0.1:9', amount: '1', currency: 'VWL' });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.error.code).toBe('no_route');
    await ok(A, 'PUT', '/api/v1/system/settings', { max_p2p_level: 4 });
    const far = await call(A, 'POST', '/api/v1/wallet/send', { address: F.node.baseUrl, amount: '1', currency: 'VWL' });
    expect(far.body.error?.code).toBe('no_route');
    await ok(A, 'PUT', '/api/v1/system/settings', { max_p2p_level: 5 });
    const tooMuch = await call(A, 'POST', '/api/v1/wallet/send', { address: F.node.baseUrl, amount: '5000', currency: 'VWL' });
    expect(tooMuch.body.error?.code).toBe('no_route');
    const fits = await routedSend(A, F, '1');
    expect(fits.status).toBe('sent');
    await legsSettled(nodes, fits.p2p_hash);
  });
});
