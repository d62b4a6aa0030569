/**
 * Payback methods on one node, through the REST API: create, list (filters, order), view, reveal, update,
 * share policy, delete; the validation envelope of Document 1 (convention 8) with every failing field; field
 * values never stored in plaintext (node.db, its WAL, node.log); plugin rails through the `payback` service.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RailRegistrationError } from '../../builtin-plugins/payback-methods/api.js';
import { coreRails } from '../../builtin-plugins/payback-methods/rails/index.js';
import { RailRegistry } from '../../builtin-plugins/payback-methods/registry.js';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { definePlugin, defineRail, type PaybackRail } from '../../sdk/index.js';
import { PAYBACK_SERVICE, type PaybackRailRegistry, type RailRegistrationCode } from '../../sdk/payback-rail.js';
import { call, ok, type Envelope } from '../support/api.js';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';
import { invalid } from './payback-support.js';

const BASE = '/api/v1/payback-methods';

// Distinctive values: none of them may ever be found in the node's files.
const IBAN_TYPED = 'de89 3704 0044 0532 0130 00';
const IBAN = 'DE89370400440532013000';
const RECIPIENT = 'Quintessa Vantablack';
const BTC_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const BTC_MEMO = 'memo Marmalade-8812';
const ROW_BANK = 'Zanzibar Treasury Annex 7731';
const ROW_REF = 'Invoice-Kumquat-42';
const CPF_TYPED = '529.982.247-25';
const CPF = '52998224725';
const SECRETS = [IBAN, IBAN_TYPED, 'Quintessa', 'Vantablack', BTC_ADDRESS, 'Marmalade-8812', ROW_BANK, ROW_REF, CPF, CPF_TYPED];

const sepaFields = { rail: 'sepa', recipient_name: RECIPIENT, iban: IBAN_TYPED };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// ---- a plugin that adds a rail through the `payback` service, written against the sdk alone (the plugin contract)

const outcomes: Record<string, string> = {};
const loyaltyRail: PaybackRail = defineRail({
  id: 'loyalty_points',
  catalog: () => ({
    id: 'loyalty_points',
    label: 'Loyalty points',
    fields: [{ name: 'member', label: 'Member number', type: 'string', required: true, sensitive: true }],
    currencies: ['PTS'],
  }),
  validate: (fields, currency) => {
    const errors = [];
    if (currency !== 'PTS') errors.push({ field: 'currency', code: 'unsupported_currency', message: 'PTS only' });
    if (typeof fields.member !== 'string' || !/^\d{6}$/.test(fields.member)) errors.push({ field: 'member', code: 'invalid_format', message: '6 digits' });
    return errors;
  },
  mask: (fields) => `Member •••• ${String(fields.member).slice(-2)}`,
  precision: () => ({ min_unit: 1, exponent: 0 }),
});
const shadowBtc: PaybackRail = { ...loyaltyRail, id: 'btc' };

const railPlugin: BuiltinPlugin = {
  manifest: { name: 'rail-fixture', version: '1.0.0', requires: ['payback'], payback_types: ['loyalty_points'], enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      const payback = ctx.services.use<PaybackRailRegistry>(PAYBACK_SERVICE);
      const attempt = (name: string, rail: PaybackRail): void => {
        try {
          payback.registerRail(rail);
          outcomes[name] = 'registered';
        } catch (err) {
          const code: RailRegistrationCode | undefined = err instanceof Error ? (err as Error & { code?: RailRegistrationCode }).code : undefined;
          outcomes[name] = code ?? `unexpected: ${String(err)}`;
        }
      };
      attempt('shadow', shadowBtc);
      attempt('loyalty', loyaltyRail);
      attempt('again', loyaltyRail);
      attempt('bad_id', { ...loyaltyRail, id: 'Bad-Id' });
    },
  }),
};

describe('payback methods on one node', () => {
  let A: TestNode;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    A = await startTestNode({ extraBuiltins: [railPlugin] });
  });
  afterAll(async () => {
    await A?.destroy();
  });

  it('creates methods on several rails: 201 with a method_id', async () => {
    const sepa = await call(A, 'POST', BASE, { type: 'bank_wire', label: 'Main account', currency: 'eur', fields: sepaFields });
    expect(sepa.status).toBe(201);
    expect(sepa.body).toMatchObject({ success: true, data: { method_id: expect.stringMatching(/^pbm_[0-9a-f]{24}$/) } });
    expect(Object.keys(sepa.body.data)).toEqual(['method_id']);
    ids.sepa = sepa.body.data.method_id;

    ids.btc = (await ok(A, 'POST', BASE, { type: 'btc', label: 'Cold wallet', currency: 'BTC', priority: 50, share_policy: 'never', fields: { address: BTC_ADDRESS, memo: BTC_MEMO } })).method_id;
    ids.custom = (
      await ok(A, 'POST', BASE, {
        type: 'custom',
        label: 'Time bank',
        currency: 'Hours',
        fields: { rows: [{ key: 'Bank', value: ROW_BANK }, { key: 'Reference', value: ROW_REF }] },
      })
    ).method_id;
    ids.pix = (await ok(A, 'POST', BASE, { type: 'pix', label: 'Pix CPF', currency: 'brl', priority: 200, fields: { key_type: 'cpf', key: CPF_TYPED } })).method_id;
    expect(new Set(Object.values(ids)).size).toBe(4);
  });

  it('views a method masked, with the settlement precision and no fields', async () => {
    const { method } = await ok(A, 'GET', `${BASE}/${ids.sepa}`);
    expect(method).toEqual({
      method_id: ids.sepa,
      type: 'bank_wire',
      label: 'Main account',
      currency: 'EUR',
      priority: 100,
      enabled: true,
      share_policy: 'auto',
      settlement_min_unit: 1,
      settlement_min_unit_exponent: -2,
      masked_display: 'SEPA •••• 3000 (Q. Vantablack)',
      created_at: expect.stringMatching(ISO),
      updated_at: method.created_at,
    });
    const btc = (await ok(A, 'GET', `${BASE}/${ids.btc}`)).method;
    expect(btc).toMatchObject({ currency: 'BTC', priority: 50, share_policy: 'never', settlement_min_unit: 1, settlement_min_unit_exponent: -8 });
    expect(btc.masked_display).not.toContain(BTC_ADDRESS);
    expect(btc).not.toHaveProperty('fields');
    const custom = (await ok(A, 'GET', `${BASE}/${ids.custom}`)).method;
    expect(custom).toMatchObject({ currency: 'Hours', masked_display: 'Custom (2 rows)', settlement_min_unit_exponent: -8 });
    const pix = (await ok(A, 'GET', `${BASE}/${ids.pix}`)).method;
    expect(pix).toMatchObject({ currency: 'BRL', masked_display: 'Pix •••• 4725', settlement_min_unit_exponent: -2 });
  });

  it('reveals exactly the stored (normalised) fields', async () => {
    const sepa = (await ok(A, 'GET', `${BASE}/${ids.sepa}/reveal`)).method;
    expect(sepa.fields).toEqual({ rail: 'sepa', recipient_name: RECIPIENT, iban: IBAN });
    expect(sepa).toMatchObject({ method_id: ids.sepa, masked_display: 'SEPA •••• 3000 (Q. Vantablack)', settlement_min_unit_exponent: -2 });
    expect((await ok(A, 'GET', `${BASE}/${ids.btc}/reveal`)).method.fields).toEqual({ address: BTC_ADDRESS, memo: BTC_MEMO });
    expect((await ok(A, 'GET', `${BASE}/${ids.custom}/reveal`)).method.fields).toEqual({ rows: [{ key: 'Bank', value: ROW_BANK }, { key: 'Reference', value: ROW_REF }] });
    expect((await ok(A, 'GET', `${BASE}/${ids.pix}/reveal`)).method.fields).toEqual({ key_type: 'cpf', key: CPF });
  });

  it('reveal needs payback:write; view and list need payback:read', async () => {
    const created = await ok(A, 'POST', '/api/v1/keys', { name: 'reader', permissions: ['payback:read'] });
    const reader = clientWithKey(A.node, created.key_id, created.secret);
    expect((await reader.get(`${BASE}/${ids.sepa}`)).status).toBe(200);
    expect((await reader.get(BASE)).status).toBe(200);
    const reveal = await reader.get<Envelope>(`${BASE}/${ids.sepa}/reveal`);
    expect(reveal.status).toBe(403);
    expect(reveal.body.error.code).toBe('permission_denied');
    expect((await reader.post<Envelope>(BASE, { type: 'btc', label: 'x', currency: 'BTC', fields: { address: BTC_ADDRESS } })).status).toBe(403);
  });

  it('lists enabled methods by priority, then newest first; all=1 adds disabled ones', async () => {
    await ok(A, 'PUT', `${BASE}/${ids.pix}`, { enabled: false });
    const list = await ok(A, 'GET', BASE);
    expect(list.count).toBe(3);
    // btc (50), then the two at 100 newest first (custom after sepa), pix disabled.
    expect(list.methods.map((m: any) => m.method_id)).toEqual([ids.btc, ids.custom, ids.sepa]);
    for (const m of list.methods) {
      expect(Object.keys(m).sort()).toEqual(
        ['created_at', 'currency', 'enabled', 'label', 'masked_display', 'method_id', 'priority', 'settlement_min_unit', 'settlement_min_unit_exponent', 'share_policy', 'type', 'updated_at'],
      );
    }
    const all = await ok(A, 'GET', BASE, undefined, { all: '1' });
    expect(all.methods.map((m: any) => m.method_id)).toEqual([ids.btc, ids.custom, ids.sepa, ids.pix]);
    expect(all.methods[3]).toMatchObject({ enabled: false });
    expect((await ok(A, 'GET', BASE, undefined, { all: '0' })).count).toBe(3);
  });

  it('filters by currency case-insensitively', async () => {
    expect((await ok(A, 'GET', BASE, undefined, { currency: 'eur' })).methods.map((m: any) => m.method_id)).toEqual([ids.sepa]);
    expect((await ok(A, 'GET', BASE, undefined, { currency: 'HOURS' })).methods.map((m: any) => m.method_id)).toEqual([ids.custom]);
    expect((await ok(A, 'GET', BASE, undefined, { currency: 'hours' })).methods.map((m: any) => m.method_id)).toEqual([ids.custom]);
    expect(await ok(A, 'GET', BASE, undefined, { currency: 'brl' })).toEqual({ methods: [], count: 0, total: 0, limit: 50, offset: 0 });
    expect((await ok(A, 'GET', BASE, undefined, { currency: 'brl', all: '1' })).methods.map((m: any) => m.method_id)).toEqual([ids.pix]);
    expect(await invalid(A, 'GET', BASE, undefined, { currency: 'e', all: '2' })).toEqual([
      ['currency', 'invalid_format'],
      ['all', 'invalid_value'],
    ]);
  });

  it('reports every failing field at once in the validation envelope', async () => {
    expect(
      await invalid(A, 'POST', BASE, {
        type: 'bank_wire',
        label: 'L'.repeat(129),
        currency: 'e$',
        priority: 10000,
        share_policy: 'sometimes',
        fields: { rail: 'sepa', recipient_name: '', iban: 'DE89370400440532013001', bic: 'x' },
      }),
    ).toEqual([
      ['label', 'too_long'],
      ['currency', 'invalid_format'],
      ['priority', 'invalid_value'],
      ['share_policy', 'invalid_value'],
      ['fields.bic', 'unknown_field'],
      ['fields.recipient_name', 'required'],
      ['fields.iban', 'invalid_checksum'],
    ]);
    expect(await invalid(A, 'POST', BASE, {})).toEqual([
      ['type', 'required'],
      ['label', 'required'],
      ['currency', 'required'],
      ['fields', 'required'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 'paypal2', label: '   ', currency: 'USD', fields: {} })).toEqual([
      ['type', 'unknown_type'],
      ['label', 'required'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 'btc', label: 'x', currency: 'BTC', priority: -1, fields: 'x' })).toEqual([
      ['priority', 'invalid_value'],
      ['fields', 'invalid_type'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 7, label: 5, currency: 12, priority: 1.5, fields: [] })).toEqual([
      ['type', 'invalid_type'],
      ['label', 'invalid_type'],
      ['currency', 'invalid_type'],
      ['priority', 'invalid_type'],
      ['fields', 'invalid_type'],
    ]);
    // The rail's own currency rule lands on `currency`; a CPF with a wrong check digit on its field.
    expect(await invalid(A, 'POST', BASE, { type: 'pix', label: 'Pix', currency: 'USD', fields: { key_type: 'cpf', key: '529.982.247-26' } })).toEqual([
      ['currency', 'unsupported_currency'],
      ['fields.key', 'invalid_checksum'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 'btc', label: 'x', currency: 'BTC', fields: { address: `${BTC_ADDRESS.slice(0, -1)}b` } })).toEqual([
      ['fields.address', 'invalid_checksum'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 'custom', label: 'x', currency: 'Hours', fields: { rows: [{ key: 'k'.repeat(65), value: 'v' }] } })).toEqual([
      ['fields.rows[0].key', 'too_long'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 'btc', label: 'bad\u0007label', currency: 'BTC', fields: { address: BTC_ADDRESS } })).toEqual([
      ['label', 'invalid_format'],
    ]);
    // Limits are inclusive: 128 characters and priorities 0 and 9999 pass.
    const edge = await ok(A, 'POST', BASE, { type: 'btc', label: 'é'.repeat(128), currency: 'BTC', priority: 9999, fields: { address: BTC_ADDRESS } });
    await ok(A, 'DELETE', `${BASE}/${edge.method_id}`);
    // Nothing was stored by the failures.
    expect((await ok(A, 'GET', BASE, undefined, { all: '1' })).count).toBe(4);
  });

  it('updates label, priority, share policy, enabled and the complete fields; ignores other keys', async () => {
    const before = (await ok(A, 'GET', `${BASE}/${ids.sepa}`)).method;
    // updated_at has millisecond resolution: let the clock pass the stored value, so that the change is visible.
    while (new Date().toISOString() <= before.updated_at) await new Promise((r) => setImmediate(r));
    const res = await ok(A, 'PUT', `${BASE}/${ids.sepa}`, {
      label: 'Main account (DE)',
      priority: 7,
      share_policy: 'never',
      enabled: true,
      fields: { rail: 'sepa', recipient_name: RECIPIENT, iban: 'NL91 ABNA 0417 1643 00' },
      type: 'btc',
      currency: 'USD',
      method_id: 'pbm_000000000000000000000000',
      created_at: '2000-01-01T00:00:00.000Z',
    });
    expect(res).toEqual({ method_id: ids.sepa });
    const after = (await ok(A, 'GET', `${BASE}/${ids.sepa}/reveal`)).method;
    expect(after).toEqual({
      ...before,
      label: 'Main account (DE)',
      priority: 7,
      share_policy: 'never',
      masked_display: 'SEPA •••• 4300 (Q. Vantablack)',
      updated_at: expect.stringMatching(ISO),
      fields: { rail: 'sepa', recipient_name: RECIPIENT, iban: 'NL91ABNA0417164300' },
    });
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(after.created_at).toBe(before.created_at);
    await ok(A, 'PUT', `${BASE}/${ids.sepa}`, { fields: sepaFields, share_policy: 'auto', priority: 100, label: 'Main account' });
  });

  it('refuses partial fields on update (the complete object is required) and changes nothing', async () => {
    const before = (await ok(A, 'GET', `${BASE}/${ids.sepa}/reveal`)).method;
    expect(await invalid(A, 'PUT', `${BASE}/${ids.sepa}`, { fields: { iban: 'NL91ABNA0417164300' } })).toEqual([['fields.rail', 'required']]);
    expect(await invalid(A, 'PUT', `${BASE}/${ids.sepa}`, { fields: { rail: 'sepa', iban: 'NL91ABNA0417164300' }, label: 'x'.repeat(129) })).toEqual([
      ['label', 'too_long'],
      ['fields.recipient_name', 'required'],
    ]);
    expect(await invalid(A, 'PUT', `${BASE}/${ids.btc}`, { priority: 10000, enabled: 'yes', share_policy: 'prompt', label: null })).toEqual([
      ['label', 'required'],
      ['priority', 'invalid_value'],
      ['share_policy', 'invalid_value'],
      ['enabled', 'invalid_type'],
    ]);
    // The currency is fixed at creation: new fields are checked against it.
    expect(await invalid(A, 'PUT', `${BASE}/${ids.pix}`, { fields: sepaFields })).toEqual([
      ['fields.rail', 'unknown_field'],
      ['fields.iban', 'unknown_field'],
      ['fields.key_type', 'required'],
      ['fields.key', 'required'],
    ]);
    expect((await ok(A, 'GET', `${BASE}/${ids.sepa}/reveal`)).method).toEqual(before);
    // An empty update, or one that repeats the stored values, changes nothing (not even updated_at) and still answers.
    expect(await ok(A, 'PUT', `${BASE}/${ids.sepa}`, {})).toEqual({ method_id: ids.sepa });
    expect(await ok(A, 'PUT', `${BASE}/${ids.sepa}`, { label: before.label, priority: before.priority, enabled: true, share_policy: 'auto', fields: sepaFields })).toEqual({ method_id: ids.sepa });
    expect((await ok(A, 'GET', `${BASE}/${ids.sepa}/reveal`)).method).toEqual(before);
  });

  it('sets the share policy', async () => {
    expect(await ok(A, 'PUT', `${BASE}/${ids.custom}/share-policy`, { share_policy: 'never' })).toEqual({ method_id: ids.custom, share_policy: 'never' });
    expect((await ok(A, 'GET', `${BASE}/${ids.custom}`)).method.share_policy).toBe('never');
    expect(await ok(A, 'PUT', `${BASE}/${ids.custom}/share-policy`, { share_policy: 'AUTO' })).toEqual({ method_id: ids.custom, share_policy: 'auto' });
    expect(await invalid(A, 'PUT', `${BASE}/${ids.custom}/share-policy`, { share_policy: 'prompt' })).toEqual([['share_policy', 'invalid_value']]);
    expect(await invalid(A, 'PUT', `${BASE}/${ids.custom}/share-policy`, {})).toEqual([['share_policy', 'required']]);
  });

  it('answers 404 payback_method_not_found for unknown ids on every route', async () => {
    const missing = 'pbm_0123456789abcdef01234567';
    for (const [method, path, body] of [
      ['GET', `${BASE}/${missing}`, undefined],
      ['GET', `${BASE}/${missing}/reveal`, undefined],
      ['PUT', `${BASE}/${missing}`, { label: 'x' }],
      ['PUT', `${BASE}/${missing}/share-policy`, { share_policy: 'auto' }],
      ['DELETE', `${BASE}/${missing}`, undefined],
      ['GET', `${BASE}/not-an-id`, undefined],
    ] as const) {
      const res = await call(A, method, path, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'payback_method_not_found', message: expect.any(String) },
        timestamp: expect.any(String),
        request_id: expect.any(String),
      });
    }
  });

  it('builds payer payloads where the rail has one', async () => {
    const link = await ok(A, 'GET', `${BASE}/${ids.btc}/payload`, undefined, { amount: '0.001' });
    expect(link).toEqual({ method_id: ids.btc, type: 'btc', currency: 'BTC', amount: '0.001', payload: { kind: 'link', uri: expect.stringMatching(/^bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa\?/) } });
    expect(link.payload.uri).toContain('amount=0.001');
    const paynow = await ok(A, 'POST', BASE, { type: 'paynow', label: 'PayNow', currency: 'SGD', fields: { identifier_type: 'mobile', identifier: '+65 8455 4295' } });
    expect((await ok(A, 'GET', `${BASE}/${paynow.method_id}/payload`)).payload).toEqual({
      kind: 'qr',
      payload: '00020101021126380009SG.PAYNOW010100211+6584554295030115204000053037025802SG5902NA6009SINGAPORE630416D8',
    });
    const none = await call(A, 'GET', `${BASE}/${ids.sepa}/payload`);
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('payload_not_supported');
    const bad = await call(A, 'GET', `${BASE}/${ids.btc}/payload`, undefined, { amount: '-1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_amount');
    await ok(A, 'DELETE', `${BASE}/${paynow.method_id}`);
  });

  it('deletes permanently', async () => {
    const temp = await ok(A, 'POST', BASE, { type: 'btc', label: 'Temporary', currency: 'BTC', fields: { address: BTC_ADDRESS } });
    expect(await ok(A, 'DELETE', `${BASE}/${temp.method_id}`)).toEqual({ method_id: temp.method_id, deleted: true });
    expect((await call(A, 'GET', `${BASE}/${temp.method_id}`)).status).toBe(404);
    expect((await call(A, 'DELETE', `${BASE}/${temp.method_id}`)).status).toBe(404);
    expect((await ok(A, 'GET', BASE, undefined, { all: '1' })).methods.map((m: any) => m.method_id)).not.toContain(temp.method_id);
  });

  it('lists the rail catalog: the 29 core rails first, then plugin rails', async () => {
    const data = await ok(A, 'GET', `${BASE}/types`);
    expect(data.count).toBe(30);
    expect(data.types.slice(0, 29).map((t: any) => t.id)).toEqual(coreRails.map((r) => r.id));
    expect(data.types.slice(0, 29).every((t: any) => t.core === true)).toBe(true);
    expect(data.types[29]).toEqual({ ...loyaltyRail.catalog(), core: false, settlement_payload: false });
    const bank = data.types.find((t: any) => t.id === 'bank_wire');
    expect(bank).toMatchObject({ label: expect.any(String), fields: expect.any(Array), variants: { discriminator: 'rail' }, settlement_payload: false });
    expect(data.types.find((t: any) => t.id === 'paynow').settlement_payload).toBe(true);
  });

  it('a plugin rail works like a core one; core ids, duplicates and bad ids are refused', async () => {
    expect(outcomes).toEqual({ shadow: 'core_rail_id', loyalty: 'registered', again: 'duplicate_rail_id', bad_id: 'invalid_rail_id' });
    // The core btc rail still validates bitcoin addresses (the shadow was not installed).
    expect(await invalid(A, 'POST', BASE, { type: 'btc', label: 'x', currency: 'BTC', fields: { member: '123456' } })).toEqual([
      ['fields.member', 'unknown_field'],
      ['fields.address', 'required'],
    ]);
    expect(await invalid(A, 'POST', BASE, { type: 'loyalty_points', label: 'Points', currency: 'EUR', fields: { member: '12' } })).toEqual([
      ['currency', 'unsupported_currency'],
      ['fields.member', 'invalid_format'],
    ]);
    const created = await ok(A, 'POST', BASE, { type: 'loyalty_points', label: 'Points', currency: 'PTS', fields: { member: '123456' } });
    const view = (await ok(A, 'GET', `${BASE}/${created.method_id}/reveal`)).method;
    expect(view).toMatchObject({ type: 'loyalty_points', masked_display: 'Member •••• 56', settlement_min_unit: 1, settlement_min_unit_exponent: 0, fields: { member: '123456' } });
    await ok(A, 'DELETE', `${BASE}/${created.method_id}`);
  });

  it('the registry refuses core ids at the service level', () => {
    const registry = new RailRegistry(coreRails);
    const service = registry.service();
    for (const rail of coreRails) {
      expect(() => service.registerRail({ ...loyaltyRail, id: rail.id })).toThrow(RailRegistrationError);
    }
    try {
      service.registerRail({ ...loyaltyRail, id: 'bank_wire' });
    } catch (err) {
      expect((err as RailRegistrationError).code).toBe('core_rail_id');
    }
    expect(() => service.registerRail({ id: 'half_rail' } as unknown as PaybackRail)).toThrow(/lacks catalog/);
    service.registerRail(loyaltyRail);
    expect(service.rail('loyalty_points')).toBe(loyaltyRail);
    expect(service.railIds()).toEqual([...coreRails.map((r) => r.id), 'loyalty_points']);
    expect(service.rail('bank_wire')).toBe(coreRails[0]);
  });

  it('a rail that throws fails its own inputs, not the request', () => {
    const registry = new RailRegistry(coreRails);
    const broken: PaybackRail = { ...loyaltyRail, id: 'broken', validate: () => { throw new Error('boom'); }, mask: () => { throw new Error('boom'); } };
    registry.register(broken);
    expect(registry.validate(broken, {}, 'PTS')).toEqual([{ field: 'fields', code: 'rail_failed', message: expect.any(String) }]);
    expect(registry.mask(broken, {})).toBe('••••');
  });

  it('never writes a field value in plaintext: node.db, its WAL and node.log hold only ciphertext', async () => {
    // Touch every path that handles fields once more: update (re-encrypt), reveal, list.
    await ok(A, 'PUT', `${BASE}/${ids.btc}`, { fields: { address: BTC_ADDRESS, memo: BTC_MEMO } });
    await ok(A, 'GET', `${BASE}/${ids.custom}/reveal`);
    await ok(A, 'GET', BASE, undefined, { all: '1' });
    const files = ['node.db', 'node.db-wal', 'node.log'].map((f) => join(A.dataDir, f)).filter((f) => existsSync(f));
    expect(files.map((f) => f.split('/').pop())).toEqual(expect.arrayContaining(['node.db', 'node.db-wal']));
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    // The check can see what is stored: labels are not secret and are stored as they are.
    expect(bytes.includes(Buffer.from('Time bank'))).toBe(true);
    for (const secret of SECRETS) {
      expect({ secret, found: bytes.includes(Buffer.from(secret, 'utf8')) }).toEqual({ secret, found: false });
      expect({ secret, found: bytes.includes(Buffer.from(secret, 'utf16le')) }).toEqual({ secret, found: false });
    }
    // And after a checkpoint folds the WAL into the database file, the same holds.
    await A.restart();
    const again = Buffer.concat(['node.db', 'node.db-wal'].map((f) => join(A.dataDir, f)).filter(existsSync).map((f) => readFileSync(f)));
    for (const secret of SECRETS) expect({ secret, found: again.includes(Buffer.from(secret, 'utf8')) }).toEqual({ secret, found: false });
    // The same seed gives the same key: a restart still reveals.
    expect((await ok(A, 'GET', `${BASE}/${ids.pix}/reveal`)).method.fields).toEqual({ key_type: 'cpf', key: CPF });
  });
});
