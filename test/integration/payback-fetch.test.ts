/**
 * The contact fetch flow between real nodes on loopback: B fetches the payback methods A shares (enabled, share
 * policy auto), never A's `never` or disabled ones; B caches them encrypted; a node that is not an accepted
 * contact of A is refused; the cache follows what A shares now.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FETCH_LIMIT } from '../../builtin-plugins/payback-methods/messages.js';
import { call, ok, waitFor, hashOf, type Envelope } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const BASE = '/api/v1/payback-methods';
const enc = encodeURIComponent;

/** `from` asks `to` (saved as toName) to connect; `to` accepts (saving it as fromName): both sides end up accepted. */
async function connect(from: TestNode, fromName: string, to: TestNode, toName: string): Promise<void> {
  await ok(from, 'POST', '/api/v1/contacts', { address: to.node.baseUrl, name: toName, currency: 'VWL', fee_percent: 0, credit_limit: '10' });
  await waitFor(() => call(to, 'GET', `/api/v1/contacts/${hashOf(from)}`), (r) => r.status === 200, 'the request to arrive');
  await ok(to, 'POST', `/api/v1/contacts/${hashOf(from)}/decisions`, {
    decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: 10 }],
    is_new_contact: true,
    contact_address: from.node.baseUrl,
    contact_name: fromName,
  });
  await waitFor(() => ok(from, 'GET', `/api/v1/contacts/${hashOf(to)}`).then((d) => d.contact.status), (s) => s === 'accepted', 'the acceptance to arrive');
}

const IBAN = 'FR1420041010050500013M02606';
const RECIPIENT = 'Aurelio Brightwater';
const CPF = '11144477735';
const HIDDEN_ADDRESS = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';
const DISABLED_ROW = 'Pelican Credit Union 5523';

describe('payback methods fetched by a contact', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    await connect(B, 'Bob', A, 'Alice');

    ids.sepa = (await ok(A, 'POST', BASE, { type: 'bank_wire', label: 'Euro account', currency: 'EUR', priority: 10, fields: { rail: 'sepa', recipient_name: RECIPIENT, iban: IBAN } })).method_id;
    ids.pix = (await ok(A, 'POST', BASE, { type: 'pix', label: 'Pix', currency: 'BRL', priority: 5, fields: { key_type: 'cpf', key: CPF } })).method_id;
    ids.never = (await ok(A, 'POST', BASE, { type: 'btc', label: 'Private bitcoin', currency: 'BTC', priority: 1, share_policy: 'never', fields: { address: HIDDEN_ADDRESS } })).method_id;
    ids.disabled = (await ok(A, 'POST', BASE, { type: 'custom', label: 'Old bank', currency: 'EUR', priority: 1, fields: { rows: [{ key: 'Bank', value: DISABLED_ROW }] } })).method_id;
    await ok(A, 'PUT', `${BASE}/${ids.disabled}`, { enabled: false });
  });
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  it('knows nothing of a contact before the first fetch', async () => {
    expect(await ok(B, 'GET', `${BASE}/contact/Alice`)).toEqual({ contact: { name: 'Alice', pubkey_hash: hashOf(A) }, methods: [], fetched_at: null });
  });

  it('B fetches A: the auto methods, by priority, with their fields; never the never or disabled ones', async () => {
    const res = await call(B, 'POST', `${BASE}/fetch/Alice`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toEqual({
      contact: { name: 'Alice', pubkey_hash: hashOf(A) },
      methods: [
        {
          method_id: ids.pix,
          type: 'pix',
          label: 'Pix',
          currency: 'BRL',
          priority: 5,
          settlement_min_unit: 1,
          settlement_min_unit_exponent: -2,
          masked_display: 'Pix •••• 7735',
          fields: { key_type: 'cpf', key: CPF },
          fetched_at: data.fetched_at,
        },
        {
          method_id: ids.sepa,
          type: 'bank_wire',
          label: 'Euro account',
          currency: 'EUR',
          priority: 10,
          settlement_min_unit: 1,
          settlement_min_unit_exponent: -2,
          masked_display: 'SEPA •••• 2606 (A. Brightwater)',
          fields: { rail: 'sepa', recipient_name: RECIPIENT, iban: IBAN },
          fetched_at: data.fetched_at,
        },
      ],
      fetched_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(JSON.stringify(data)).not.toContain(HIDDEN_ADDRESS);
    expect(JSON.stringify(data)).not.toContain(DISABLED_ROW);
  });

  it('B keeps them: the cached view, by name, address or key hash, and per currency', async () => {
    const fetched = await ok(B, 'GET', `${BASE}/contact/Alice`);
    expect(fetched.methods.map((m: any) => m.method_id)).toEqual([ids.pix, ids.sepa]);
    expect(await ok(B, 'GET', `${BASE}/contact/${hashOf(A)}`)).toEqual(fetched);
    expect(await ok(B, 'GET', `${BASE}/contact/${enc(A.node.baseUrl)}`)).toEqual(fetched);
    const eur = await ok(B, 'GET', `${BASE}/contact/Alice`, undefined, { currency: 'eur' });
    expect(eur.methods.map((m: any) => m.method_id)).toEqual([ids.sepa]);
    const unknown = await call(B, 'GET', `${BASE}/contact/Nobody`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('contact_not_found');
  });

  it('the cache follows what A shares now', async () => {
    await ok(A, 'PUT', `${BASE}/${ids.sepa}/share-policy`, { share_policy: 'never' });
    await ok(A, 'PUT', `${BASE}/${ids.disabled}`, { enabled: true, share_policy: 'auto' });
    const data = await ok(B, 'POST', `${BASE}/fetch/Alice`);
    expect(data.methods.map((m: any) => [m.method_id, m.label])).toEqual([
      [ids.disabled, 'Old bank'],
      [ids.pix, 'Pix'],
    ]);
    expect(data.methods[0].fields).toEqual({ rows: [{ key: 'Bank', value: DISABLED_ROW }] });
    expect((await ok(B, 'GET', `${BASE}/contact/Alice`)).methods.map((m: any) => m.method_id)).toEqual([ids.disabled, ids.pix]);

    // A fetch limited to one currency replaces only that currency's methods.
    await ok(A, 'PUT', `${BASE}/${ids.disabled}`, { enabled: false });
    const eur = await ok(B, 'POST', `${BASE}/fetch/Alice`, { currency: 'eur' });
    expect(eur.methods).toEqual([]);
    expect((await ok(B, 'GET', `${BASE}/contact/Alice`)).methods.map((m: any) => m.method_id)).toEqual([ids.pix]);

    await ok(A, 'PUT', `${BASE}/${ids.sepa}/share-policy`, { share_policy: 'auto' });
    const all = await ok(B, 'POST', `${BASE}/fetch/${hashOf(A)}`);
    expect(all.methods.map((m: any) => m.method_id)).toEqual([ids.pix, ids.sepa]);
  });

  it('builds a payer payload from a contact method when its rail has one', async () => {
    const paynow = (await ok(A, 'POST', BASE, { type: 'paynow', label: 'PayNow', currency: 'SGD', priority: 20, fields: { identifier_type: 'mobile', identifier: '+65 8455 4295' } })).method_id;
    await ok(B, 'POST', `${BASE}/fetch/Alice`);
    const data = await ok(B, 'GET', `${BASE}/contact/Alice/${paynow}/payload`);
    expect(data).toEqual({
      method_id: paynow,
      type: 'paynow',
      currency: 'SGD',
      amount: null,
      payload: { kind: 'qr', payload: '00020101021126380009SG.PAYNOW010100211+6584554295030115204000053037025802SG5902NA6009SINGAPORE630416D8' },
    });
    const missing = await call(B, 'GET', `${BASE}/contact/Alice/pbm_000000000000000000000000/payload`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('payback_method_not_found');
    await ok(A, 'DELETE', `${BASE}/${paynow}`);
  });

  it('a node that is not an accepted contact is refused', async () => {
    // C asks A to connect; A never accepts, so C is not an accepted contact of A.
    await ok(C, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice', currency: 'VWL' });
    await waitFor(() => call(A, 'GET', `/api/v1/contacts/${hashOf(C)}`), (r) => r.status === 200, 'the request to arrive');
    const res = await call(C, 'POST', `${BASE}/fetch/Alice`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'fetch_refused', message: expect.any(String), peer_code: 'not_a_contact' },
      timestamp: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await ok(C, 'GET', `${BASE}/contact/Alice`)).methods).toEqual([]);
    // A name that is no contact at all on the asking side.
    const unknown = await call(C, 'POST', `${BASE}/fetch/Zed`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('contact_not_found');
  });

  it('the fetch needs payback:read only', async () => {
    const key = await ok(B, 'POST', '/api/v1/keys', { name: 'payback reader', permissions: ['payback:read'] });
    const { clientWithKey } = await import('../support/node.js');
    const reader = clientWithKey(B.node, key.key_id, key.secret);
    expect((await reader.post(`${BASE}/fetch/Alice`, {})).status).toBe(200);
    expect((await reader.get(`${BASE}/contact/Alice`)).status).toBe(200);
    const none = await ok(B, 'POST', '/api/v1/keys', { name: 'contacts only', permissions: ['contacts:read'] });
    const other = clientWithKey(B.node, none.key_id, none.secret);
    expect((await other.post(`${BASE}/fetch/Alice`, {})).status).toBe(403);
  });

  it('neither node keeps a shared field in plaintext (the responder records replies sealed to a one-time key)', () => {
    for (const t of [A, B]) {
      const bytes = Buffer.concat(['node.db', 'node.db-wal', 'node.log'].map((f) => join(t.dataDir, f)).filter(existsSync).map((f) => readFileSync(f)));
      expect(bytes.includes(Buffer.from('Euro account'))).toBe(true);
      for (const secret of [IBAN, RECIPIENT, 'Brightwater', CPF, HIDDEN_ADDRESS, DISABLED_ROW]) {
        expect({ node: t === A ? 'A' : 'B', secret, found: bytes.includes(Buffer.from(secret)) }).toEqual({ node: t === A ? 'A' : 'B', secret, found: false });
      }
    }
  });

  it('a contact that fetches too often is told to slow down (429 fetch_rate_limited)', async () => {
    let limited: { status: number; body: Envelope } | null = null;
    for (let i = 0; i <= FETCH_LIMIT.max && !limited; i++) {
      const res = await call(B, 'POST', `${BASE}/fetch/Alice`);
      if (res.status !== 200) limited = res;
    }
    expect(limited?.status).toBe(429);
    expect(limited?.body.error).toMatchObject({ code: 'fetch_rate_limited', peer_code: 'rate_limited' });
    // The cache keeps the last good answer.
    expect((await ok(B, 'GET', `${BASE}/contact/Alice`)).methods.map((m: any) => m.method_id)).toEqual([ids.pix, ids.sepa]);
  });

  it('deleting the contact forgets what it shared', async () => {
    await ok(B, 'DELETE', `/api/v1/contacts/${hashOf(A)}`);
    await waitFor(() => call(B, 'GET', `${BASE}/contact/${hashOf(A)}`), (r) => r.status === 404, 'the contact to go');
    // Known again, the contact starts with nothing cached.
    await ok(B, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice', currency: 'VWL' });
    const again = await ok(B, 'GET', `${BASE}/contact/${hashOf(A)}`);
    expect(again).toEqual({ contact: { name: 'Alice', pubkey_hash: hashOf(A) }, methods: [], fetched_at: null });
  });

  it('an unreachable contact answers 502 contact_unreachable', async () => {
    await A.stop();
    const res = await call(B, 'POST', `${BASE}/fetch/${hashOf(A)}`);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'contact_unreachable', peer_code: expect.any(String) });
  });
});
