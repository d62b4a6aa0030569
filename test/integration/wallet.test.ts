/**
 * The wallet routes of Document 1 on real nodes: send validation (every bad amount, currency, description,
 * self-send, unknown contact, non-contact address), accepted amount forms, refunds (full, partial, over the
 * remainder, in flight), listings with pagination and filters, overview, balances and info.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AMOUNT, formatMinor } from '../../kernel/money.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, call, connect, hashOf, ok, send, settled, tx, waitFor } from './ledger-support.js';

describe('wallet REST', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;

  const snapshot = async () => ({
    count: (await ok(A, 'GET', '/api/v1/wallet/transactions')).pagination.total,
    balances: (await ok(A, 'GET', '/api/v1/wallet/balance')).balances,
    countB: (await ok(B, 'GET', '/api/v1/wallet/transactions')).pagination.total,
  });

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '500', creditBtoA: '500' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  describe('send', () => {
    const tooBig = formatMinor(MAX_AMOUNT + 1n);
    it.each([
      ['negative number', -5],
      ['negative string', '-5'],
      ['zero', 0],
      ['zero string', '0'],
      ['zero with decimals', '0.00000000'],
      ['9 decimals', '0.000000001'],
      ['9 decimals on a whole', '1.123456789'],
      ['above the maximum', tooBig],
      ['far above the maximum', '1e30'],
      ['letters', 'abc'],
      ['two dots', '100.50.50'],
      ['hex', '0x10'],
      ['empty string', ''],
      ['blank string', '   '],
      ['a boolean', true],
      ['an object', { value: 1 }],
      ['null', null],
      ['a tiny exponent', '1e-9'],
      ['infinity text', 'Infinity'],
    ])('%s → invalid_amount, nothing changes', async (_label, amount) => {
      const before = await snapshot();
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount, currency: 'VWL' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_amount');
      expect(await snapshot()).toEqual(before);
    });

    it('missing amount → missing_field, nothing changes', async () => {
      const before = await snapshot();
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', currency: 'VWL' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('missing_field');
      for (const body of [{ amount: '1', currency: 'VWL' }, { address: 'Bob', amount: '1' }]) {
        const r = await call(A, 'POST', '/api/v1/wallet/send', body);
        expect(r.body.error.code).toBe('missing_field');
      }
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['the minimum unit', '0.00000001', '0.00000001'],
      ['exponent notation', '1e2', '100'],
      ['surrounding spaces', ' 100 ', '100'],
      ['a JSON number', 12.5, '12.5'],
      ['trailing zeros', '3.10000000', '3.1'],
      ['a plus sign', '+2', '2'],
    ])('%s is accepted as documented', async (_label, amount, shown) => {
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount, currency: 'vwl' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        status: 'sent',
        recipient: 'Bob',
        recipient_address: B.node.addresses().https,
        amount: shown,
        currency: 'VWL',
        type: 'standard',
      });
      expect(res.body.data.txid).toMatch(/^[0-9a-f]{64}$/);
      expect(typeof res.body.data.message).toBe('string');
      const done = await settled(A, res.body.data.txid, B);
      expect(done).toMatchObject({ status: 'completed', amount: shown });
      expect((await tx(B, res.body.data.txid)).amount).toBe(shown);
    });

    it('the maximum amount (max signed 64-bit / 4, whole units) passes the route; the receiver then refuses it for credit', async () => {
      const max = formatMinor(MAX_AMOUNT);
      expect(max).toBe('2305843009213693951');
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: max, currency: 'VWL' });
      expect(res.status).toBe(200);
      expect(res.body.data.amount).toBe(max);
      const done = await settled(A, res.body.data.txid);
      expect(done).toMatchObject({ status: 'rejected', amount: max });
      expect(done.failure_reason).toMatch(/^insufficient_credit/);
      const over = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: `${max}.5`, currency: 'VWL' });
      expect([over.status, over.body.error.code]).toEqual([400, 'invalid_amount']);
    });

    it('currency rules: malformed or not allowed → invalid_currency', async () => {
      for (const currency of ['V', 'TOOLONGCODE1', 'V$L', 'EUR', 5]) {
        const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency });
        expect(res.status, String(currency)).toBe(400);
        expect(res.body.error.code).toBe('invalid_currency');
      }
    });

    it('description: 255 characters pass, 256 → invalid_description', async () => {
      const ok255 = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'VWL', description: 'x'.repeat(255) });
      expect(ok255.status).toBe(200);
      await settled(A, ok255.body.data.txid, B);
      expect((await tx(B, ok255.body.data.txid)).description).toBe('x'.repeat(255));
      const before = await snapshot();
      for (const description of ['x'.repeat(256), 42]) {
        const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'VWL', description });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_description');
      }
      expect(await snapshot()).toEqual(before);
    });

    it('self_send: own address or own key hash', async () => {
      for (const address of [A.node.baseUrl, A.node.addresses().https!, hashOf(A)]) {
        const res = await call(A, 'POST', '/api/v1/wallet/send', { address, amount: '1', currency: 'VWL' });
        expect(res.status, address).toBe(400);
        expect(res.body.error.code).toBe('self_send');
      }
    });

    it('unknown name → contact_not_found; an address that is no contact → no_route at once', async () => {
      const unknown = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Nobody', amount: '1', currency: 'VWL' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('contact_not_found');
      const t0 = Date.now();
      const stranger = await call(A, 'POST', '/api/v1/wallet/send', { address: C.node.baseUrl, amount: '1', currency: 'VWL' });
      expect(stranger.status).toBe(400);
      expect(stranger.body.error.code).toBe('no_route');
      expect(stranger.body.error.message).toMatch(/not one of your contacts/);
      const dead = await call(A, 'POST', '/api/v1/wallet/send', { address: 'http://127.0.0.1:9', amount: '1', currency: 'VWL' });
      expect(dead.body.error.code).toBe('no_route');
      expect(Date.now() - t0).toBeLessThan(1000);
      const bad = await call(A, 'POST', '/api/v1/wallet/send', { address: 'http://', amount: '1', currency: 'VWL' });
      expect(bad.body.error.code).toBe('invalid_address');
    });

    it('send needs wallet:send', async () => {
      const key = await ok(A, 'POST', '/api/v1/keys', { name: 'reader', permissions: ['wallet:read'] });
      const { clientWithKey } = await import('../support/node.js');
      const reader = clientWithKey(A.node, key.key_id, key.secret);
      const res = await reader.post<any>('/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'VWL' });
      expect(res.status).toBe(403);
      expect((await reader.get<any>('/api/v1/wallet/balance')).status).toBe(200);
    });
  });

  describe('refund', () => {
    let received: string;

    beforeAll(async () => {
      received = await send(B, 'Alice', '10');
      await settled(B, received, A);
    });

    it('refuses malformed, unknown, not-received and not-settled txids with invalid_refund', async () => {
      const sentByA = await send(A, 'Bob', '1');
      await settled(A, sentByA, B);
      const cases: unknown[] = ['abc', 'z'.repeat(64), 'f'.repeat(64), sentByA, 42];
      for (const txid of cases) {
        const res = await call(A, 'POST', '/api/v1/wallet/refund', { txid });
        expect(res.status, String(txid)).toBe(400);
        expect(res.body.error.code).toBe('invalid_refund');
      }
      expect((await call(A, 'POST', '/api/v1/wallet/refund', {})).body.error.code).toBe('missing_field');
      // A payment Alice sent that was rejected is not "received" either.
      const rejected = await send(A, 'Bob', '100000');
      expect((await settled(A, rejected)).status).toBe('rejected');
      expect((await call(A, 'POST', '/api/v1/wallet/refund', { txid: rejected })).body.error.code).toBe('invalid_refund');
    });

    it('partial, then in flight counted, then over the remainder, then the full remainder, then nothing left', async () => {
      const bad = await call(A, 'POST', '/api/v1/wallet/refund', { txid: received, amount: '-1' });
      expect(bad.body.error.code).toBe('invalid_amount');

      const part = await ok(A, 'POST', '/api/v1/wallet/refund', { txid: received, amount: '2.5' });
      expect(part).toMatchObject({
        status: 'partially_refunded',
        original_txid: received,
        amount: '2.5',
        currency: 'VWL',
        original_amount: '10',
        already_refunded: '0',
        remaining: '7.5',
        fully_refunded: false,
      });
      expect(part.refund_txid).toMatch(/^[0-9a-f]{64}$/);
      expect(typeof part.note).toBe('string');
      // Immediately, while the first refund may still be in flight: it counts.
      const second = await ok(A, 'POST', '/api/v1/wallet/refund', { txid: received, amount: 3 });
      expect(second).toMatchObject({ already_refunded: '2.5', remaining: '4.5', status: 'partially_refunded' });

      const over = await call(A, 'POST', '/api/v1/wallet/refund', { txid: received, amount: '4.50000001' });
      expect(over.status).toBe(400);
      expect(over.body.error.code).toBe('invalid_refund');
      expect(over.body.error.message).toMatch(/exceeds the remainder 4.5/);

      const rest = await ok(A, 'POST', '/api/v1/wallet/refund', { txid: received, amount: '' });
      expect(rest).toMatchObject({ status: 'fully_refunded', amount: '4.5', already_refunded: '5.5', remaining: '0', fully_refunded: true });

      const again = await call(A, 'POST', '/api/v1/wallet/refund', { txid: received });
      expect(again.body.error.code).toBe('invalid_refund');
      expect(again.body.error.message).toMatch(/already fully refunded/);

      for (const t of [part.refund_txid, second.refund_txid, rest.refund_txid]) expect((await settled(A, t, B)).status).toBe('completed');
      const refundRow = await tx(B, rest.refund_txid);
      expect(refundRow).toMatchObject({ type: 'received', amount: '4.5', description: `refund of ${received}` });
      expect((await tx(A, rest.refund_txid)).refund_of).toBe(received);
    });

    it('a full refund with the amount omitted returns everything', async () => {
      const t = await send(B, 'Alice', '0.3');
      await settled(B, t, A);
      const before = (await balanceRow(A, B))!;
      const r = await ok(A, 'POST', '/api/v1/wallet/refund', { txid: t });
      expect(r).toMatchObject({ status: 'fully_refunded', amount: '0.3', remaining: '0', fully_refunded: true, original_amount: '0.3' });
      await settled(A, r.refund_txid, B);
      const after = (await balanceRow(A, B))!;
      expect(Number(after.sent) - Number(before.sent)).toBeCloseTo(0.3, 8);
    });
  });

  describe('listings', () => {
    it('transactions: pagination, type and contact filters, caps', async () => {
      const all = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100 });
      const total = all.pagination.total;
      expect(total).toBeGreaterThan(10);
      expect(all.transactions.length).toBe(Math.min(total, 100));

      const p1 = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 3, offset: 0 });
      const p2 = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 3, offset: 3 });
      expect(p1.pagination).toEqual({ total, limit: 3, offset: 0 });
      expect(p2.pagination).toEqual({ total, limit: 3, offset: 3 });
      expect(p1.transactions.map((t: any) => t.txid)).toEqual(all.transactions.slice(0, 3).map((t: any) => t.txid));
      expect(p2.transactions.map((t: any) => t.txid)).toEqual(all.transactions.slice(3, 6).map((t: any) => t.txid));
      // Newest first.
      expect(all.transactions[0].timestamp >= all.transactions[all.transactions.length - 1].timestamp).toBe(true);

      const capped = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 500 });
      expect(capped.pagination.limit).toBe(100);
      const def = await ok(A, 'GET', '/api/v1/wallet/transactions');
      expect(def.pagination).toMatchObject({ limit: 50, offset: 0 });

      const sent = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'sent', limit: 100 });
      const received = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received', limit: 100 });
      expect(sent.transactions.every((t: any) => t.type === 'sent')).toBe(true);
      expect(received.transactions.every((t: any) => t.type === 'received')).toBe(true);
      expect(sent.pagination.total + received.pagination.total).toBe(total);

      const byName = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { contact: 'Bob', limit: 100 });
      const byAddress = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { contact: B.node.baseUrl, limit: 100 });
      expect(byName.pagination.total).toBe(total);
      expect(byAddress.pagination.total).toBe(total);
      expect(byName.transactions[0]).toMatchObject({ counterparty_name: 'Bob', memo: 'standard', tx_type: 'standard' });
      for (const key of ['txid', 'type', 'tx_type', 'status', 'amount', 'currency', 'sender_address', 'receiver_address', 'description', 'memo', 'timestamp']) {
        expect(byName.transactions[0]).toHaveProperty(key);
      }

      const nobody = await call(A, 'GET', '/api/v1/wallet/transactions', undefined, { contact: 'Nobody' });
      expect(nobody.status).toBe(404);
      expect(nobody.body.error.code).toBe('contact_not_found');
      const badType = await call(A, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'gift' });
      expect(badType.status).toBe(400);
      const missing = await call(A, 'GET', `/api/v1/wallet/transactions/${'0'.repeat(64)}`);
      expect(missing.status).toBe(404);
    });

    it('overview: totals per currency, available credit, recent transactions (default 5, cap 20)', async () => {
      const more = await Promise.all(Array.from({ length: 8 }, () => send(A, 'Bob', '0.01')));
      for (const t of more) await settled(A, t, B);
      const o = await ok(A, 'GET', '/api/v1/wallet/overview');
      expect(o.transaction_count).toBeGreaterThan(20);
      expect(o.recent_transactions.length).toBe(5);
      expect(o.transaction_count).toBe((await ok(A, 'GET', '/api/v1/wallet/transactions')).pagination.total);
      const row = (await balanceRow(A, B))!;
      expect(o.balances).toEqual([{ currency: 'VWL', total_balance: row.net_balance }]);
      expect(Object.keys(o.recent_transactions[0]).sort()).toEqual(
        ['amount', 'counterparty_name', 'currency', 'description', 'status', 'timestamp', 'tx_type', 'txid', 'type'].sort(),
      );
      expect(Array.isArray(o.total_available_credit)).toBe(true);
      expect((await ok(A, 'GET', '/api/v1/wallet/overview', undefined, { transaction_limit: 50 })).recent_transactions.length).toBe(20);
      expect((await ok(A, 'GET', '/api/v1/wallet/overview', undefined, { transaction_limit: 2 })).recent_transactions.length).toBe(2);
    });

    it('balance and its /balances alias list rows per contact and currency', async () => {
      const a = await ok(A, 'GET', '/api/v1/wallet/balance');
      const b = await ok(A, 'GET', '/api/v1/wallet/balances');
      expect(a).toEqual(b);
      expect(a.balances[0]).toMatchObject({ contact_name: 'Bob', address: B.node.addresses().https, currency: 'VWL' });
      for (const key of ['received', 'sent', 'net_balance']) expect(a.balances[0][key]).toMatch(/^-?\d+(\.\d{1,8})?$/);
    });

    it('info: identity, addresses, fee earnings (none without routing) and available credit per currency', async () => {
      await call(A, 'POST', '/api/v1/contacts/ping/Bob');
      const info = await ok(A, 'GET', '/api/v1/wallet/info');
      expect(info.public_key_hash).toBe(hashOf(A));
      expect(info.addresses.http).toBe(A.node.baseUrl);
      expect(info.fee_earnings).toEqual([]);
      const bob = (await ok(A, 'GET', '/api/v1/contacts/Bob')).contact;
      const mine = bob.currencies.find((c: any) => c.currency === 'VWL').my_available_credit;
      await waitFor(async () => (await ok(A, 'GET', '/api/v1/wallet/info')).available_credit, (v: any[]) => v.length === 1, 'available credit');
      expect((await ok(A, 'GET', '/api/v1/wallet/info')).available_credit).toEqual([{ currency: 'VWL', total_available_credit: mine }]);
      // What Bob extends (500) minus what Alice owes Bob (Alice's net with Bob, negated when negative).
      const net = Number((await balanceRow(A, B))!.net_balance);
      expect(Number(mine)).toBeCloseTo(500 + net, 8);
    });
  });
});

describe('wallet: retired node, recipient address', () => {
  let A: TestNode;
  let B: TestNode;
  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B);
  }, 60_000);
  afterAll(() => Promise.all([A, B].map((t) => t?.destroy())));

  it('refuses /wallet/send with 503 node_retired and stores nothing; after unretire the payment goes through', async () => {
    await ok(A, 'POST', '/api/v1/system/retire', { confirm: true });
    const refused = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'VWL' });
    expect([refused.status, refused.body.error?.code]).toEqual([503, 'node_retired']);
    expect((await ok(A, 'GET', '/api/v1/wallet/transactions')).pagination.total).toBe(0);
    await ok(A, 'POST', '/api/v1/system/unretire', { confirm: true });
    const txid = await send(A, 'Bob', '1');
    expect((await settled(A, txid, B)).status).toBe('completed');
  });

  it('recipient_address is the address the payment goes to under the transport settings', async () => {
    const addresses = B.node.addresses();
    await ok(A, 'PUT', '/api/v1/system/settings', { default_transport_mode: 'http' });
    const overHttp = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '0.5', currency: 'VWL' });
    expect(overHttp.recipient_address).toBe(addresses.http);
    expect((await settled(A, overHttp.txid, B)).status).toBe('completed');
    await ok(A, 'PUT', '/api/v1/system/settings', { default_transport_mode: 'https' });
    const overHttps = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '0.5', currency: 'VWL' });
    expect(overHttps.recipient_address).toBe(addresses.https);
    expect((await settled(A, overHttps.txid, B)).status).toBe('completed');
  });
});
