import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadPlugin } from 'wallet-node/sdk/testing';

const BUYER = 'b'.repeat(64);
const PAID = 'a'.repeat(32);
/** A payment that arrived while the plugin was not running: only the ledger knows it. */
const MISSED = 'c'.repeat(32);

// index.ts bundled as `node-cli plugin build` does and run in an isolate as the node runs it; no node needed.
const plugin = await loadPlugin(new URL('.', import.meta.url), {
  settings: { price: '2.5', currency: 'EUR' },
  gateway: {
    'payment_requests.create': ({ contact, amount, currency }) => ({ request_id: 'req-1', contact_hash: contact, amount, currency, status: 'pending' }),
    'transactions.lookup': ({ txid }) =>
      txid === MISSED
        ? { txid, direction: 'received', status: 'completed', amount: '2.5', currency: 'EUR', description: 'Haiku (order pn-2)', counterparty_hash: BUYER, created_at: '', completed_at: '' }
        : null,
  },
});
after(() => plugin.stop());

test('the operator writes a note, which the public catalog lists with the price', async () => {
  const saved = await plugin.signed('PUT', 'notes/haiku', { body: { title: 'Haiku', text: 'old pond / frog jumps in / sound of water' } });
  assert.equal(saved.status, 201);
  assert.deepEqual((await plugin.public('GET', 'catalog')).data, { notes: [{ id: 'haiku', title: 'Haiku' }], price: '2.5', currency: 'EUR' });
});

test("an order asks the buyer's node to pay, and the payment opens the note", async () => {
  const order = await plugin.public('POST', 'order', { body: { note: 'haiku', buyer: BUYER } });
  assert.equal(order.status, 201);
  assert.deepEqual(order.data, { order: 'pn-1', request_id: 'req-1', amount: '2.5', currency: 'EUR' });
  assert.deepEqual(plugin.gatewayCalls.at(-1), { op: 'payment_requests.create', args: { contact: BUYER, amount: '2.5', currency: 'EUR', description: 'Haiku (order pn-1)' } });
  assert.equal((await plugin.public('GET', 'note/haiku', { query: { txid: PAID } })).error.code, 'payment_required');

  await plugin.emit('payment.received', { txid: PAID, amount: '2.5', currency: 'EUR', description: 'Haiku (order pn-1)', counterparty_hash: BUYER, completed_at: '' });
  const note = await plugin.public('GET', 'note/haiku', { query: { txid: PAID } });
  assert.deepEqual(note.data, { id: 'haiku', title: 'Haiku', text: 'old pond / frog jumps in / sound of water', order: 'pn-1' });
});

test('a payment the plugin missed is found through transactions.lookup', async () => {
  assert.equal((await plugin.public('POST', 'order', { body: { note: 'haiku', buyer: BUYER } })).data.order, 'pn-2');
  assert.equal((await plugin.public('GET', 'note/haiku', { query: { txid: MISSED } })).data.order, 'pn-2');
  assert.deepEqual(plugin.gatewayCalls.at(-1), { op: 'transactions.lookup', args: { txid: MISSED } });
});
