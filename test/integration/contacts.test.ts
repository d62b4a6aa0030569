/**
 * Contacts between real nodes on loopback, driven through the REST API: requests, decisions, currencies,
 * declines, mutual adds, blocking, ping/pong and name resolution.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok, waitFor, hashOf } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const enc = encodeURIComponent;
/** The address responses name a contact by: its preferred one (tor, then https, then http). */
const shownAddress = (t: TestNode): string => { const a = t.node.addresses(); return a.tor ?? a.https ?? a.http!; };
const view = (t: TestNode, ref: string) => ok(t, 'GET', `/api/v1/contacts/${enc(ref)}`).then((d) => d.contact);
const rowOf = (contact: any, currency: string) => contact.currencies.find((r: any) => r.currency === currency);
const listRow = async (t: TestNode, hash: string, currency: string) =>
  (await ok(t, 'GET', `/api/v1/contacts/${hash}/currencies`)).currencies.find((r: any) => r.currency.toLowerCase() === currency.toLowerCase());
const setSettings = (t: TestNode, body: Record<string, unknown>) => ok(t, 'PUT', '/api/v1/system/settings', body);

describe('contacts between nodes', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  let D: TestNode;

  beforeAll(async () => {
    [A, B, C, D] = await Promise.all([startTestNode(), startTestNode(), startTestNode(), startTestNode()]);
    await setSettings(A, { allowed_currencies: ['VWL', 'USD', 'EUR', 'Hours'] });
    await setSettings(B, { allowed_currencies: ['VWL', 'Hours'] });
  });
  afterAll(async () => {
    await Promise.all([A, B, C, D].map((t) => t?.destroy()));
  });

  it('A adds B: pending outgoing on A, incoming on B with the requested credit echoed', async () => {
    const res = await call(A, 'POST', '/api/v1/contacts', {
      address: B.node.baseUrl,
      name: 'Bob',
      fee_percent: 1.5,
      credit_limit: '250',
      currency: 'VWL',
      requested_credit_limit: 400,
      requested_credit_enforced: true,
      description: 'Hi Bob, it is Alice from the market',
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ status: 'pending', address: B.node.baseUrl, name: 'Bob' });
    expect(typeof res.body.data.message).toBe('string');

    const pendingA = await ok(A, 'GET', '/api/v1/contacts/pending');
    expect(pendingA.counts).toEqual({ incoming: 0, outgoing: 1, total: 1 });
    expect(pendingA.pending.outgoing[0]).toMatchObject({ name: 'Bob', pubkey_hash: hashOf(B), status: 'pending' });
    expect(pendingA.pending.outgoing[0].currencies[0]).toMatchObject({
      currency: 'VWL',
      fee_percent: 1.5,
      credit_limit: '250',
      requested_credit_limit: '400',
      requested_credit_enforced: true,
      requested_minimum: '400',
    });

    // A's claimed address is adopted once a hello fetched from it is signed by A's key.
    const pendingB = await waitFor(
      () => ok(B, 'GET', '/api/v1/contacts/pending'),
      (p) => p.counts.incoming === 1 && p.pending.incoming[0].addresses.http !== null,
      'request on B with its verified address',
    );
    expect(pendingB.counts).toEqual({ incoming: 1, outgoing: 0, total: 1 });
    const incoming = pendingB.pending.incoming[0];
    expect(incoming).toMatchObject({ pubkey_hash: hashOf(A), name: null, status: 'pending', is_new_contact: true });
    expect(incoming.addresses.http).toBe(A.node.baseUrl);
    expect(incoming.currencies).toEqual([
      expect.objectContaining({
        currency: 'VWL',
        requested_credit_limit: '400',
        requested_credit_enforced: true,
        description: 'Hi Bob, it is Alice from the market',
        warning: null,
      }),
    ]);
    // Not accepted yet: absent from the default (accepted) list on both sides.
    expect((await ok(A, 'GET', '/api/v1/contacts')).count).toBe(0);
    expect((await ok(B, 'GET', '/api/v1/contacts', undefined, { status: 'pending' })).count).toBe(1);
  });

  it('B accepts with decisions: the enforced minimum holds, then both sides are accepted with the agreed terms', async () => {
    // Below the enforced minimum of 400: refused per currency, nothing changes.
    const low = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 2, credit: 300 }],
      is_new_contact: true,
      contact_address: A.node.baseUrl,
      contact_name: 'Alice',
    });
    expect(low).toMatchObject({ accepted: [], declined: [], errors: [{ currency: 'VWL', code: 'requested_minimum_unmet' }] });

    // While pending, the name and address are required.
    const missing = await call(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, { decisions: [{ currency: 'VWL', action: 'accept', fee: 2, credit: 500 }] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_field');

    const res = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 2, credit: '500.5' }],
      is_new_contact: true,
      contact_address: A.node.baseUrl,
      contact_name: 'Alice',
    });
    expect(res).toEqual({ accepted: ['VWL'], declined: [], deferred: [], errors: [] });

    const bob = await waitFor(() => view(A, 'Bob'), (c) => c.status === 'accepted', 'accept on A');
    expect(rowOf(bob, 'VWL')).toMatchObject({
      currency: 'VWL',
      fee_percent: 1.5,
      credit_limit: '250',
      status: 'accepted',
      direction: 'outgoing',
      requested_minimum: '400',
      requested_min_unmet: false,
      my_available_credit: '500.5',
    });
    expect(bob.my_available_credit).toBe('500.5');
    expect(bob.balance).toEqual({ currency: 'VWL', received: '0', sent: '0', net: '0' });

    const alice = await waitFor(() => view(B, 'Alice'), (c) => rowOf(c, 'VWL').my_available_credit === '250', 'credit on B');
    expect(alice).toMatchObject({ name: 'Alice', status: 'accepted', pubkey_hash: hashOf(A) });
    expect(rowOf(alice, 'VWL')).toMatchObject({ fee_percent: 2, credit_limit: '500.5', status: 'accepted', direction: 'incoming', requested_minimum: null });
    expect((await ok(B, 'GET', '/api/v1/contacts/pending')).counts.total).toBe(0);
    expect((await ok(A, 'GET', '/api/v1/contacts')).contacts.map((c: any) => c.name)).toEqual(['Bob']);
  });

  it('ping reports online and my_available_credit per currency equal to the limit the other side extends', async () => {
    const res = await ok(A, 'POST', `/api/v1/contacts/ping/${enc('Bob')}`);
    expect(res).toMatchObject({ contact_name: 'Bob', online_status: 'online', chain_valid: true, my_available_credit: { VWL: '500.5' } });
    expect(typeof res.message).toBe('string');
    const fromB = await ok(B, 'POST', `/api/v1/contacts/ping/${enc(A.node.baseUrl)}`);
    expect(fromB).toMatchObject({ contact_name: 'Alice', online_status: 'online', chain_valid: true, my_available_credit: { VWL: '250' } });
    const bob = await view(A, 'Bob');
    expect(bob.online_status).toBe('online');
    expect(bob.last_ping_at).toMatch(/Z$/);

    // A local credit change shows on the peer's next ping; below A's enforced minimum (400) it is flagged.
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: 300 });
    expect((await ok(A, 'POST', '/api/v1/contacts/ping/Bob')).my_available_credit).toEqual({ VWL: '300' });
    expect(rowOf(await view(A, 'Bob'), 'VWL')).toMatchObject({ requested_minimum: '400', requested_min_unmet: true, my_available_credit: '300' });
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: 600 });
    expect((await ok(A, 'POST', '/api/v1/contacts/ping/Bob')).my_available_credit).toEqual({ VWL: '600' });
    expect(rowOf(await view(A, 'Bob'), 'VWL')).toMatchObject({ requested_min_unmet: false, my_available_credit: '600' });
  });

  it('a second currency outside B\'s allowed list arrives pending with a warning; accepting it allows it', async () => {
    await setSettings(B, { auto_reject_unknown_currency: false });
    const res = await call(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'usd', fee: 0.5, credit: '10.12345678' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ currency: 'USD' });
    const pending = await waitFor(() => ok(B, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'USD request on B');
    expect(pending.pending.incoming[0]).toMatchObject({ pubkey_hash: hashOf(A), name: 'Alice', is_new_contact: false });
    expect(pending.pending.incoming[0].currencies[0]).toMatchObject({ currency: 'USD', warning: 'currency_not_allowed' });
    expect(await listRow(B, hashOf(A), 'USD')).toEqual(expect.objectContaining({ currency: 'USD', status: 'pending', direction: 'incoming' }));
    expect((await listRow(B, hashOf(A), 'USD')).fee_percent).toBeUndefined();

    const accepted = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'USD', fee: 1, credit: 20 });
    expect(accepted).toEqual({ accepted: ['USD'], declined: [], errors: [] });
    const settings = await ok(B, 'GET', '/api/v1/system/settings');
    expect(JSON.stringify(settings)).toContain('USD');

    const row = await waitFor(() => listRow(A, hashOf(B), 'USD'), (r) => r.status === 'accepted', 'USD accepted on A');
    expect(row).toMatchObject({ currency: 'USD', status: 'accepted', direction: 'outgoing', fee_percent: 0.5, credit_limit: '10.12345678', my_available_credit: '20' });
    const list = (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}/currencies`)) as any;
    expect(list.pubkey_hash).toBe(hashOf(B));
    expect(list.currencies.map((r: any) => r.currency)).toEqual(['VWL', 'USD']);
    const ping = await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    expect(ping.my_available_credit).toEqual({ VWL: '600', USD: '20' });
  });

  it('auto-reject: a request in a currency the recipient does not allow is refused and the requester learns it', async () => {
    await setSettings(B, { auto_reject_unknown_currency: true });
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'EUR', fee: 0, credit: 5 });
    const row = await waitFor(() => listRow(A, hashOf(B), 'EUR'), (r) => r.status === 'declined', 'EUR refused');
    expect(row.decline_reason).toBe('currency_not_allowed');
    const bRow = await listRow(B, hashOf(A), 'EUR');
    expect(bRow).toBeUndefined();
  });

  it('a currency decline reaches the requester, and asking again after a decline works', async () => {
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'Hours', fee: 0, credit: 3 });
    await waitFor(() => listRow(B, hashOf(A), 'Hours'), (r) => r?.status === 'pending', 'Hours on B');
    const res = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-decline`, { currency: 'hours' });
    expect(res).toMatchObject({ currency: 'Hours' });
    expect(typeof res.message).toBe('string');
    const row = await waitFor(() => listRow(A, hashOf(B), 'Hours'), (r) => r.status === 'declined', 'Hours declined on A');
    expect(row.decline_reason).toBe('declined_by_peer');
    // Declined rows show in the currency listing, not in the contact's currencies.
    expect(rowOf(await view(A, 'Bob'), 'Hours')).toBeUndefined();

    const again = await call(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'Hours', fee: 0, credit: 4 });
    expect(again.status).toBe(201);
    await waitFor(() => listRow(B, hashOf(A), 'Hours'), (r) => r?.status === 'pending', 'Hours pending again on B');
    expect((await listRow(A, hashOf(B), 'Hours')).status).toBe('pending');
    // Decisions: declines run first, defer does nothing.
    const d = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
      decisions: [
        { currency: 'Hours', action: 'defer' },
        { currency: 'NOPE1', action: 'accept', fee: 0, credit: 1 },
      ],
    });
    expect(d.accepted).toEqual([]);
    expect(d.deferred).toEqual(['Hours']);
    expect(d.errors).toEqual([expect.objectContaining({ currency: 'NOPE1', code: 'currency_not_found' })]);
    const d2 = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, { decisions: [{ currency: 'Hours', action: 'decline' }] });
    expect(d2).toMatchObject({ accepted: [], declined: ['Hours'], errors: [] });
    await waitFor(() => listRow(A, hashOf(B), 'Hours'), (r) => r.status === 'declined', 'Hours declined again');

    // Drift: B removes a delivered request locally (no notice); A's next ping reconciles its stale pending row.
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'Hours', fee: 0, credit: 4 });
    await waitFor(() => listRow(B, hashOf(A), 'Hours'), (r) => r?.status === 'pending', 'Hours pending on B');
    await waitFor(() => ok(A, 'GET', '/api/v1/contacts/pending'), (p) => p.pending.outgoing[0]?.currencies[0]?.delivered === true, 'delivered flag');
    const removed = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-remove`, { currency: 'Hours' });
    expect(removed).toMatchObject({ currency: 'Hours' });
    expect(await listRow(B, hashOf(A), 'Hours')).toBeUndefined();
    expect((await listRow(A, hashOf(B), 'Hours')).status).toBe('pending');
    const ping = await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    expect(ping.message).toContain('Hours');
    expect(await listRow(A, hashOf(B), 'Hours')).toMatchObject({ status: 'declined', decline_reason: 'unknown_to_peer' });
  });

  it('a whole-contact decline reaches the requester; declining again is idempotent', async () => {
    await ok(C, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice' });
    await waitFor(() => ok(A, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'C request on A');
    const res = await ok(A, 'POST', `/api/v1/contacts/${hashOf(C)}/decline`);
    expect(res.declined).toEqual(['VWL']);
    expect(typeof res.message).toBe('string');
    const row = await waitFor(() => listRow(C, hashOf(A), 'VWL'), (r) => r.status === 'declined', 'decline on C');
    expect(row.decline_reason).toBe('declined_by_peer');
    const alice = await view(C, 'Alice');
    expect(alice.status).toBe('pending');
    expect(alice.currencies).toEqual([]);
    const again = await call(A, 'POST', `/api/v1/contacts/${hashOf(C)}/decline`);
    expect(again.status).toBe(200);
    expect(again.body.data.declined).toEqual([]);
    expect((await ok(A, 'GET', '/api/v1/contacts/pending')).counts.total).toBe(0);
    expect((await ok(C, 'GET', '/api/v1/contacts/pending')).counts.total).toBe(0);
  });

  it('a mutual add auto-accepts on both sides', async () => {
    await ok(C, 'POST', '/api/v1/contacts', { address: D.node.baseUrl, name: 'Dora', credit_limit: 70 });
    await waitFor(() => ok(D, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'C request on D');
    const res = await call(D, 'POST', '/api/v1/contacts', { address: C.node.baseUrl, name: 'Carl', credit_limit: 80 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'accepted', name: 'Carl' });
    const carl = await view(D, 'Carl');
    expect(carl.status).toBe('accepted');
    expect(rowOf(carl, 'VWL')).toMatchObject({ status: 'accepted', credit_limit: '80', my_available_credit: null });
    const dora = await waitFor(() => view(C, 'Dora'), (c) => c.status === 'accepted', 'mutual accept on C');
    expect(rowOf(dora, 'VWL')).toMatchObject({ status: 'accepted', credit_limit: '70', my_available_credit: '80' });
    await waitFor(() => view(D, 'Carl'), (c) => rowOf(c, 'VWL').my_available_credit === '70', 'credit on D');
    // Adding again an accepted contact in the same currency is refused.
    const dup = await call(D, 'POST', '/api/v1/contacts', { address: C.node.baseUrl, name: 'Carl' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('contact_exists');
  });

  it('a blocked contact\'s messages are refused; unblock restores the previous status', async () => {
    const blocked = await ok(B, 'POST', '/api/v1/contacts/block/Alice');
    expect(blocked).toEqual({ message: expect.any(String), address: shownAddress(A) });
    expect((await view(B, 'Alice')).status).toBe('blocked');
    expect((await ok(B, 'GET', '/api/v1/contacts', undefined, { status: 'blocked' })).count).toBe(1);

    const ping = await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    expect(ping.online_status).toBe('online');
    expect(ping.message).toContain('blocked');

    await setSettings(B, { allowed_currencies: ['VWL', 'Hours', 'USD', 'EUR'] });
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'EUR', fee: 0, credit: 1 });
    const row = await waitFor(() => listRow(A, hashOf(B), 'EUR'), (r) => r.status === 'declined' && r.decline_reason === 'blocked', 'EUR refused as blocked');
    expect(row.decline_reason).toBe('blocked');
    expect(await listRow(B, hashOf(A), 'EUR')).toBeUndefined();

    const unblocked = await ok(B, 'POST', '/api/v1/contacts/unblock/Alice');
    expect(unblocked).toMatchObject({ address: shownAddress(A), status: 'accepted' });
    expect((await view(B, 'Alice')).status).toBe('accepted');
    expect((await ok(A, 'POST', '/api/v1/contacts/ping/Bob')).message).not.toContain('blocked');
  });

  it('resolves contacts by name, address or hash; an ambiguous name lists the candidates', async () => {
    await ok(D, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Twin' });
    await ok(D, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Twin' });
    const amb = await call(D, 'GET', '/api/v1/contacts/Twin');
    expect(amb.status).toBe(400);
    expect(amb.body.error.code).toBe('ambiguous_contact');
    expect(amb.body.error.candidates.map((c: any) => c.pubkey_hash).sort()).toEqual([hashOf(A), hashOf(B)].sort());
    const ambPing = await call(D, 'POST', '/api/v1/contacts/ping/Twin');
    expect(ambPing.body.error.code).toBe('ambiguous_contact');
    expect((await view(D, hashOf(A))).addresses.http).toBe(A.node.baseUrl);
    expect((await view(D, A.node.baseUrl)).pubkey_hash).toBe(hashOf(A));
    expect((await view(D, A.node.baseUrl.toUpperCase().replace('HTTP://', 'http://') + '/')).pubkey_hash).toBe(hashOf(A));
    const none = await call(D, 'GET', '/api/v1/contacts/Nobody');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('contact_not_found');
    const rename = await ok(D, 'PUT', `/api/v1/contacts/${hashOf(B)}`, { name: 'Twin B' });
    expect(rename.updated).toMatchObject({ name: 'Twin B', address: shownAddress(B), currency: null, fee_percent: null, credit_limit: null });
    expect((await view(D, 'Twin')).pubkey_hash).toBe(hashOf(A));
    // Case-insensitive when no exact match.
    expect((await view(D, 'twin b')).pubkey_hash).toBe(hashOf(B));
  });

  it('search, update and delete', async () => {
    const s = await ok(A, 'GET', '/api/v1/contacts/search', undefined, { q: 'bo' });
    expect(s).toMatchObject({ search_term: 'bo', count: 1 });
    expect(s.contacts[0]).toEqual({ name: 'Bob', pubkey_hash: hashOf(B), status: 'accepted', addresses: B.node.addresses(), my_available_credit: '600' });
    const s2 = await ok(A, 'GET', '/api/v1/contacts/search', undefined, { query: hashOf(B).slice(0, 10) });
    expect(s2.count).toBe(1);
    const missing = await call(A, 'GET', '/api/v1/contacts/search');
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_field');

    const upd = await ok(A, 'PUT', '/api/v1/contacts/Bob', { currency: 'vwl', fee_percent: 3, credit_limit: '99.5' });
    expect(upd.updated).toEqual({ address: shownAddress(B), name: 'Bob', fee_percent: 3, credit_limit: '99.5', currency: 'VWL' });
    expect(typeof upd.message).toBe('string');

    const del = await ok(D, 'DELETE', `/api/v1/contacts/${enc('Twin B')}`);
    expect(del).toEqual({ message: expect.any(String), address: shownAddress(B) });
    expect((await call(D, 'GET', `/api/v1/contacts/${hashOf(B)}`)).status).toBe(404);
  });

  it('refuses invalid input with the spec codes', async () => {
    const add = (body: Record<string, unknown>) => call(A, 'POST', '/api/v1/contacts', body);
    const base = { address: 'http://127.0.0.1:9', name: 'Valid Name' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ name: 'x y' }, 400, 'missing_field'],
      [{ address: 'http://127.0.0.1:9' }, 400, 'missing_field'],
      [{ ...base, name: 'x' }, 400, 'invalid_name'],
      [{ ...base, name: 'bad!name' }, 400, 'invalid_name'],
      [{ ...base, name: 'n'.repeat(51) }, 400, 'invalid_name'],
      [{ ...base, address: 'ftp://host' }, 400, 'invalid_address'],
      [{ ...base, address: 'host:8080' }, 400, 'invalid_address'],
      [{ ...base, address: 'abc.onion' }, 400, 'invalid_address'],
      [{ ...base, fee_percent: 101 }, 400, 'invalid_fee'],
      [{ ...base, fee_percent: -1 }, 400, 'invalid_fee'],
      [{ ...base, credit_limit: -1 }, 400, 'invalid_credit'],
      [{ ...base, credit_limit: '1.123456789' }, 400, 'invalid_credit'],
      [{ ...base, credit_limit: '9223372036854775808' }, 400, 'invalid_credit'],
      [{ ...base, currency: 'XX' }, 400, 'invalid_currency'],
      [{ ...base, currency: 'ZZZ' }, 400, 'invalid_currency'],
      [{ ...base, description: 'd'.repeat(256) }, 400, 'invalid_description'],
      [{ address: A.node.baseUrl, name: 'Me Myself' }, 400, 'self_contact'],
    ];
    for (const [body, status, code] of cases) {
      const res = await add(body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status, code });
    }
    const hash = await call(A, 'POST', '/api/v1/contacts/abc/decisions', { decisions: [] });
    expect([hash.status, hash.body.error.code]).toEqual([400, 'invalid_hash']);
    const unknown = await call(A, 'POST', `/api/v1/contacts/${'a'.repeat(64)}/decline`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'contact_not_found']);
    const noFields = await call(A, 'PUT', '/api/v1/contacts/Bob', {});
    expect([noFields.status, noFields.body.error.code]).toEqual([400, 'no_fields']);
    const noCurrency = await call(A, 'PUT', '/api/v1/contacts/Bob', { fee_percent: 2 });
    expect([noCurrency.status, noCurrency.body.error.code]).toEqual([400, 'missing_currency']);
    const badStatus = await call(A, 'GET', '/api/v1/contacts', undefined, { status: 'weird' });
    expect([badStatus.status, badStatus.body.error.code]).toEqual([400, 'invalid_status']);
    // A key limited to contacts:read cannot write.
    const key = await ok(A, 'POST', '/api/v1/keys', { name: 'reader', permissions: ['contacts:read'] });
    const { clientWithKey } = await import('../support/node.js');
    const reader = clientWithKey(A.node, key.key_id, key.secret);
    expect((await reader.get('/api/v1/contacts')).status).toBe(200);
    const denied = await reader.post('/api/v1/contacts', base);
    expect(denied.status).toBe(403);
  });
});
