/**
 * Debt-cycle clearing through real nodes: A owes B, B owes C and C owes A 10 VWL each. With one node opted out nothing
 * moves; with all three opted in, one run clears the cycle: every line's balance is 0, every node's net is unchanged,
 * every chain verifies.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, nodeCli, nodeCliHuman, send, settled } from './ledger-support.js';
import { connect, dec, legsOf, netOf, ok, waitFor } from './routing-support.js';
import { csvObjects, download } from './exports-support.js';

describe('debt-cycle clearing around A-B-C', () => {
  let A: TestNode, B: TestNode, C: TestNode;
  const lines = (): Promise<string[]> =>
    Promise.all([[A, B], [B, A], [B, C], [C, B], [C, A], [A, C]].map(async ([t, peer]) => (await balanceRow(t!, peer!))!.net_balance));

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, auto_cycle_clearing: true });
    await connect(A, B, { nameOfB: 'nB', nameOfA: 'nA' });
    await connect(B, C, { nameOfB: 'nC', nameOfA: 'nB' });
    await connect(C, A, { nameOfB: 'nA', nameOfA: 'nC' });
    for (const [from, to] of [[A, B], [B, C], [C, A]] as const) await settled(from, await send(from, to.node.baseUrl, '10'), to);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t.destroy()));
  });

  it('one node opted out: nothing moves', async () => {
    await ok(C, 'PUT', '/api/v1/system/settings', { auto_cycle_clearing: false });
    try {
      const r = await ok(A, 'POST', '/api/v1/clearing/run', { currency: 'VWL' });
      expect(r).toEqual({ status: 'nothing_to_clear', currency: 'VWL', amount: '0', hash: null, txid: null });
      expect(await lines()).toEqual(['-10', '10', '-10', '10', '-10', '10']);
    } finally {
      await ok(C, 'PUT', '/api/v1/system/settings', { auto_cycle_clearing: true });
    }
  });

  it('a line switched out of clearing on a relay: nothing moves; switched back, it takes part again', async () => {
    const hashOfC = C.node.identity.pubkeyHash;
    expect(await ok(B, 'PUT', `/api/v1/clearing/lines/${hashOfC}`, { currency: 'VWL', enabled: false })).toEqual({ contact_pubkey_hash: hashOfC, currency: 'VWL', enabled: false, fee_percent: null });
    expect((await ok(B, 'GET', '/api/v1/clearing/lines')).lines).toEqual([{ contact_pubkey_hash: hashOfC, currency: 'VWL', enabled: false, fee_percent: null }]);
    try {
      expect((await ok(A, 'POST', '/api/v1/clearing/run', { currency: 'VWL' })).status).toBe('nothing_to_clear');
      expect(await lines()).toEqual(['-10', '10', '-10', '10', '-10', '10']);
    } finally {
      await ok(B, 'PUT', '/api/v1/clearing/lines/nC', { currency: 'VWL', enabled: true });
    }
  });

  it('all opted in: every line back to 0, every net unchanged, every chain verifies; clearing.done is posted', async () => {
    const posted: { body: string; signature: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        posted.push({ body, signature: String(req.headers['x-webhook-signature']) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const secret = 'the-clearing-receiver-secret';
    await ok(A, 'PUT', '/api/v1/system/settings', { webhooks_private_targets_allowed: true });
    await ok(A, 'POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, events: ['clearing.done'], secret });
    const nets = await Promise.all([A, B, C].map((t) => netOf(t)));
    const r = await ok(A, 'POST', '/api/v1/clearing/run', { currency: 'VWL' });
    expect(r).toMatchObject({ status: 'sent', currency: 'VWL', amount: '10' });
    for (const t of [A, B, C]) {
      await waitFor(() => legsOf(t, r.hash), (legs) => legs.length === 2 && legs.every((l) => l.status === 'completed'), 'the clearing legs completed');
    }
    expect(await lines()).toEqual(['0', '0', '0', '0', '0', '0']);
    expect((await Promise.all([A, B, C].map((t) => netOf(t)))).map((n) => n.toFixed())).toEqual(nets.map((n) => n.toFixed()));
    for (const t of [A, B, C]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
    // Each cleared leg is a chain entry of type clearing, on both sides, signed as such; the export shows it.
    for (const t of [A, B, C]) {
      const legs = await legsOf(t, r.hash);
      expect(legs.map((l) => l.tx_type)).toEqual(['clearing', 'clearing']);
      const exported = csvObjects((await download(t, 'transactions', { view: 'full' })).bytes).filter((row) => legs.some((l) => l.txid === row.txid));
      expect(exported.map((row) => [row.tx_type, JSON.parse(row.signed_message_content!).kind])).toEqual([
        ['clearing', 'clearing'],
        ['clearing', 'clearing'],
      ]);
    }

    const listed = await ok(A, 'GET', '/api/v1/clearing');
    expect(listed.clearings[0]).toMatchObject({ hash: r.hash, amount: '10', currency: 'VWL', status: 'completed' });
    expect((listed.clearings[0].lines as any[]).map((l) => [l.direction, l.amount, l.status]).sort()).toEqual([
      ['in', '10', 'completed'],
      ['out', '10', 'completed'],
    ]);
    // Nothing left to clear.
    expect((await ok(A, 'POST', '/api/v1/clearing/run', {})).status).toBe('nothing_to_clear');

    await waitFor(async () => posted.length, (n) => n === 1, 'clearing.done at the receiver');
    expect(JSON.parse(posted[0]!.body)).toMatchObject({ event: 'clearing.done', data: { hash: r.hash, currency: 'VWL', amount: '10' } });
    const [, t, mac] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(posted[0]!.signature)!;
    expect(createHmac('sha256', secret).update(`${t}.${posted[0]!.body}`).digest('hex')).toBe(mac);
    receiver.close();
  });

  it('node-cli clearing list and run, human and --json', async () => {
    const list = await nodeCli(A, ['clearing']);
    expect(list.body.data.count).toBe(1);
    expect((await nodeCliHuman(A, ['clearing', 'list'])).out).toContain('Clearings: 1');
    const run = await nodeCli(B, ['clearing', 'run', '--currency', 'VWL']);
    expect(run.body.data.status).toBe('nothing_to_clear');
    expect((await nodeCliHuman(B, ['clearing', 'run'])).out).toContain('No debt cycle');
  });

  it('a relay whose line terms name a clearing fee earns exactly it; the originator pays it; the third node is unchanged', async () => {
    for (const [from, to] of [[A, B], [B, C], [C, A]] as const) await settled(from, await send(from, to.node.baseUrl, '10'), to);
    // B relays A's clearing for C (C asks B to carry it on to A): B's terms on its line with C name 1%.
    expect(await ok(B, 'PUT', '/api/v1/clearing/lines/nC', { currency: 'VWL', enabled: true, fee_percent: '1' })).toMatchObject({ fee_percent: '1' });
    try {
      const nets = await Promise.all([A, B, C].map((t) => netOf(t)));
      const r = await ok(A, 'POST', '/api/v1/clearing/run', { currency: 'VWL' });
      expect(r.status).toBe('sent');
      const legs = await Promise.all([A, B, C].map((t) => waitFor(() => legsOf(t, r.hash), (l) => l.length === 2 && l.every((x) => x.status === 'completed'), 'the clearing legs completed')));
      for (const l of legs.flat()) expect(l.tx_type).toBe('clearing');
      const [outOfA, backToA] = [legs[0]!.find((l) => l.type === 'sent')!, legs[0]!.find((l) => l.type === 'received')!];
      const fee = dec(outOfA.amount).minus(backToA.amount);
      expect(fee.gt(0)).toBe(true);
      expect(fee.toFixed()).toBe(dec(backToA.amount).times('0.01').toDecimalPlaces(8, 1).toFixed());
      const after = await Promise.all([A, B, C].map((t) => netOf(t)));
      expect(after.map((n, i) => n.minus(nets[i]!).toFixed())).toEqual([fee.negated().toFixed(), fee.toFixed(), '0']);
      for (const t of [A, B, C]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
    } finally {
      await ok(B, 'PUT', '/api/v1/clearing/lines/nC', { currency: 'VWL', enabled: true, fee_percent: null });
    }
  });
});
