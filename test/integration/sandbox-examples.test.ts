/**
 * The example plugins of plugins/, as an operator runs them: built, signed by their author, installed with node-cli
 * (a folder, and an archive), enabled, restarted. The AUD rail then works through the payback routes like a core
 * rail; the paid-notes service sells a note to a contact node through a payment request.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pack } from '../../scripts/plugin-sign.js';
import { bundleOf } from './sandbox-support.js';
import { call, connect, hashOf, nodeCli, ok, settled, waitFor } from './ledger-support.js';
import { invalid } from './payback-support.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { builtExample, row, sandboxNode } from './sandbox-support.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const t of nodes) await t.destroy();
});

const AUD_METHOD = {
  type: 'au_bank',
  label: 'Everyday account',
  currency: 'AUD',
  fields: { account_name: 'Jane Mary Citizen', bsb: '062 000', account_number: '1234-5678', reference: 'INV 42' },
};

describe('the AUD rail example (plugins/aud-bank)', () => {
  it('installed, enabled and restarted, payback-methods accepts and validates au_bank; disabled, the type is gone; uninstalled, the plugin is', async () => {
    const { t, author, pluginsDir } = await sandboxNode();
    nodes.push(t);
    const dir = await builtExample('aud-bank', author);

    const installed = await nodeCli(t, ['plugin', 'install', dir]);
    expect(installed.code, JSON.stringify(installed.body)).toBe(0);
    expect(installed.body.data.plugin).toMatchObject({
      name: 'aud-bank',
      enabled: false,
      status: 'disabled',
      builtin: false,
      sandbox: { signature: { status: 'trusted' }, contributes: { payback_rail: ['au_bank'] }, permissions: [], limits: { memory_mb: 16 } },
    });
    const enabled = await nodeCli(t, ['plugin', 'enable', 'aud-bank']);
    expect(enabled.code).toBe(0);
    expect(enabled.body.data.permissions_message).toMatch(/may call: no core service; it adds payback_rail au_bank; signed by test author/);
    // Not before the restart.
    expect(await invalid(t, 'POST', '/api/v1/payback-methods', AUD_METHOD)).toEqual([['type', 'unknown_type']]);
    await ok(t, 'POST', '/api/v1/system/restart');
    expect(await row(t, 'aud-bank')).toMatchObject({ status: 'active', error: null });
    const shown = await nodeCli(t, ['plugin', 'show', 'aud-bank']);
    expect(shown.body.data.plugin.sandbox).toMatchObject({ isolate: 'running', signature: { signer: 'test author' } });
    // The manifest asks for 16 MB: more from the operator does not raise it; the CPU limit follows the operator.
    const limits = await nodeCli(t, ['plugin', 'limits', 'aud-bank', '--memory', '64', '--cpu', '300']);
    expect(limits.body.data.limits).toMatchObject({ memory_mb: 16, cpu_ms: 300 });
    expect((await nodeCli(t, ['plugin', 'limits', 'aud-bank', '--reset'])).body.data.limits).toMatchObject({ memory_mb: 16, cpu_ms: 200 });
    expect((await nodeCli(t, ['plugin', 'limits', 'aud-bank'])).code).toBe(1);

    const types = await ok(t, 'GET', '/api/v1/payback-methods/types');
    expect(types.types.find((x: { id: string }) => x.id === 'au_bank')).toMatchObject({
      id: 'au_bank',
      core: false,
      settlement_payload: false,
      currencies: ['AUD'],
      label: 'Australian bank account (BSB and account number)',
    });

    const created = await call(t, 'POST', '/api/v1/payback-methods', AUD_METHOD);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.method_id;
    const method = (await ok(t, 'GET', `/api/v1/payback-methods/${id}`)).method;
    expect(method).toMatchObject({ type: 'au_bank', currency: 'AUD', masked_display: 'AU BSB 062-000 •••• 5678 (J. Citizen)', settlement_min_unit: 1, settlement_min_unit_exponent: -2 });
    expect(method.fields).toBeUndefined();
    const revealed = (await ok(t, 'GET', `/api/v1/payback-methods/${id}/reveal`)).method;
    expect(revealed.fields).toEqual({ account_name: 'Jane Mary Citizen', bsb: '062-000', account_number: '12345678', reference: 'INV 42' });

    expect(
      await invalid(t, 'POST', '/api/v1/payback-methods', {
        ...AUD_METHOD,
        currency: 'USD',
        fields: { account_name: 'Jane\u0007', bsb: '06200', account_number: '12a45', nickname: 'x' },
      }),
    ).toEqual([
      ['currency', 'unsupported_currency'],
      ['fields.nickname', 'unknown_field'],
      ['fields.account_name', 'invalid_format'],
      ['fields.bsb', 'invalid_format'],
      ['fields.account_number', 'invalid_format'],
    ]);
    expect(
      await invalid(t, 'POST', '/api/v1/payback-methods', { ...AUD_METHOD, fields: { account_name: 'J', bsb: '000-000', account_number: '1234', reference: 'x'.repeat(19) } }),
    ).toEqual([
      ['fields.bsb', 'invalid_value'],
      ['fields.account_number', 'invalid_length'],
      ['fields.reference', 'too_long'],
    ]);
    expect(await invalid(t, 'POST', '/api/v1/payback-methods', { ...AUD_METHOD, fields: {} })).toEqual([
      ['fields.account_name', 'required'],
      ['fields.bsb', 'required'],
      ['fields.account_number', 'required'],
    ]);
    // Updates go through the same contract.
    expect(await invalid(t, 'PUT', `/api/v1/payback-methods/${id}`, { fields: { ...AUD_METHOD.fields, bsb: 'abc' } })).toEqual([['fields.bsb', 'invalid_format']]);

    expect((await nodeCli(t, ['plugin', 'disable', 'aud-bank'])).code).toBe(0);
    await ok(t, 'POST', '/api/v1/system/restart');
    const typesAfter = await ok(t, 'GET', '/api/v1/payback-methods/types');
    expect(typesAfter.types.map((x: { id: string }) => x.id)).not.toContain('au_bank');
    expect(await invalid(t, 'POST', '/api/v1/payback-methods', AUD_METHOD)).toEqual([['type', 'unknown_type']]);
    // A stored method of a rail that is gone still lists, masked by the fallback.
    expect((await ok(t, 'GET', `/api/v1/payback-methods/${id}`)).method.masked_display).toBe('••••');

    const removed = await nodeCli(t, ['plugin', 'uninstall', 'aud-bank']);
    expect(removed.code, JSON.stringify(removed.body)).toBe(0);
    expect(existsSync(join(pluginsDir, 'aud-bank'))).toBe(false);
    const list = await nodeCli(t, ['plugin', 'list']);
    expect(list.body.data.plugins.map((p: { name: string }) => p.name)).not.toContain('aud-bank');
  });

  it('node-cli refuses what the node refuses: an unsigned build, and a folder that is no plugin', async () => {
    const { t } = await sandboxNode();
    nodes.push(t);
    const unsigned = await nodeCli(t, ['plugin', 'install', await builtExample('aud-bank', null)]);
    expect(unsigned.code).toBe(1);
    expect(unsigned.body.error).toMatchObject({ code: 'plugin_untrusted', signature: 'unsigned', status: 400 });
    const nothing = await nodeCli(t, ['plugin', 'install', t.dataDir]);
    expect(nothing.code).toBe(1);
    expect(nothing.body.error.message).toMatch(/no plugin\.json/);
  });
});

describe('the paid service example (plugins/paid-notes)', () => {
  it('sells a note to a contact: a public order, a payment request, the payment, then the note', async () => {
    const { t: seller, author } = await sandboxNode();
    const buyer = await startTestNode();
    nodes.push(seller, buyer);
    await connect(seller, buyer);

    // Shipped as an archive this time.
    const dir = await builtExample('paid-notes', author);
    const archive = join(dir, 'paid-notes-1.0.0.tgz');
    const b = bundleOf(dir, null);
    writeFileSync(archive, pack([{ name: 'plugin.json', data: Buffer.from(b.manifest) }, { name: 'index.js', data: Buffer.from(b.entry) }, { name: 'plugin.sig', data: Buffer.from(bundleOf(dir, author).signature!) }]));
    const installed = await nodeCli(seller, ['plugin', 'install', archive]);
    expect(installed.code, JSON.stringify(installed.body)).toBe(0);
    const enabled = await nodeCli(seller, ['plugin', 'enable', 'paid-notes']);
    expect(enabled.body.data.permissions).toEqual(['payment_requests.create', 'transactions.lookup']);
    await ok(seller, 'POST', '/api/v1/system/restart');

    const saved = await call(seller, 'PUT', '/api/v1/plugins/paid-notes/notes/haiku', { title: 'A haiku', text: 'old pond / frog jumps in / sound of water' });
    expect(saved.status).toBe(201);
    expect((await nodeCli(seller, ['plugin', 'settings', 'paid-notes', 'price=2.5'])).code).toBe(0);

    const base = `${seller.node.baseUrl}/p/paid-notes`;
    const catalog = (await (await fetch(`${base}/catalog`)).json()) as { data: unknown };
    expect(catalog.data).toEqual({ notes: [{ id: 'haiku', title: 'A haiku' }], price: '2.5', currency: 'VWL' });

    const unpaid = await fetch(`${base}/note/haiku`);
    expect(unpaid.status).toBe(402);
    expect(((await unpaid.json()) as { error: { code: string } }).error.code).toBe('payment_required');

    const stranger = await fetch(`${base}/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ note: 'haiku', buyer: 'ab'.repeat(32) }) });
    expect(stranger.status).toBe(404);
    expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe('contact_not_found');

    const ordered = await fetch(`${base}/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ note: 'haiku', buyer: hashOf(buyer) }) });
    expect(ordered.status).toBe(201);
    const order = ((await ordered.json()) as { data: { order: string; request_id: string; amount: string; currency: string } }).data;
    expect(order).toMatchObject({ order: 'pn-1', amount: '2.5', currency: 'VWL' });

    // The buyer's node received the request and pays it.
    await waitFor(
      () => call(buyer, 'GET', '/api/v1/requests'),
      (r) => r.body.data.incoming.some((x: { request_id: string }) => x.request_id === order.request_id),
      'the payment request on the buyer',
    );
    const { txid } = await ok(buyer, 'POST', '/api/v1/requests/approve', { request_id: order.request_id });
    await settled(buyer, txid, seller);
    // The public payment.received event reached the plugin: the order is paid before anyone asks for the note.
    await waitFor(
      () => ok(seller, 'GET', '/api/v1/plugins/paid-notes/orders'),
      (o) => o.orders[0]?.status === 'paid',
      'the order paid by the payment.received event',
    );

    const note = await waitFor(
      () => fetch(`${base}/note/haiku?txid=${txid}`).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: unknown } })),
      (r) => r.status === 200,
      'the note',
    );
    expect(note.body.data).toEqual({ id: 'haiku', title: 'A haiku', text: 'old pond / frog jumps in / sound of water', order: 'pn-1' });
    const orders = await ok(seller, 'GET', '/api/v1/plugins/paid-notes/orders');
    expect(orders.orders).toEqual([expect.objectContaining({ tag: 'pn-1', status: 'paid', txid, buyer_hash: hashOf(buyer), amount: '2.5' })]);
    // A txid that paid for nothing does not open the note.
    expect((await fetch(`${base}/note/haiku?txid=${'0'.repeat(64)}`)).status).toBe(402);
  });
});
