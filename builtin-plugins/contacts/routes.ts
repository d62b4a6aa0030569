/**
 * The /api/v1/contacts routes of Document 1. Request rules, shapes and our decisions: docs/api/contacts.md.
 */
import { ApiError, created, type Logger, type RouteRequest } from '../../sdk/index.js';
import { formatMinor } from '../../sdk/money.js';
import { MAX_PAGE_PARAM } from '../../sdk/paging.js';
import type { ContactsCore, DecisionError, RequestTerms } from './core.js';
import type { PingService } from './ping.js';
import { contactActionResponse, contactCreatedResponse, contactListResponse, contactResponse, contactSearchResponse, contactUpdatedResponse, contactView, currencyActionResponse, currencyListResponse, declineResponse, decisionsResponse, pingResponse, currencyListView, currencyView, fmt, pendingResponse, pendingView, primaryAddress, primaryRow, searchView } from './present.js';
import { resolveContact } from './resolve.js';
import type { ContactRow, ContactStatus } from './store.js';
import {
  checkAddress,
  checkAllowedCurrency,
  checkCredit,
  checkCurrencyCode,
  checkDescription,
  checkHash,
  checkName,
  kindOf,
} from './validate.js';

const READ = { scope: 'contacts:read' } as const;
const WRITE = { scope: 'contacts:write' } as const;
const LIST_CAP = 100;
const SEARCH_CAP = 100;
const DEFAULT_PAGE = 50;

type Body = Record<string, unknown>;
const anyObject = { type: 'object' } as const;

const pageQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_PARAM },
    offset: { type: 'integer', minimum: 0, maximum: MAX_PAGE_PARAM },
  },
} as const;

const page = (q: Record<string, unknown>, cap: number): { limit: number; offset: number } => ({
  limit: Math.min(typeof q.limit === 'number' ? q.limit : DEFAULT_PAGE, cap),
  offset: typeof q.offset === 'number' ? q.offset : 0,
});

/** `notice: not_delivered` and why, when a decline recorded here cannot reach the contact; else nothing. */
function deliveryNotice(core: ContactsCore, c: ContactRow): { notice?: 'not_delivered'; notice_reason?: string } {
  const reason = core.undeliverable(c);
  return reason ? { notice: 'not_delivered', notice_reason: reason } : {};
}

const label = (c: ContactRow): string => c.name ?? primaryAddress(c) ?? c.pubkey_hash ?? `contact ${c.id}`;

export function registerRoutes(core: ContactsCore, pinger: PingService): void {
  const { ctx, store } = core;

  const byHashParam = (req: RouteRequest<unknown, unknown>): ContactRow => {
    const hash = checkHash(req.params.hash, 'hash');
    const c = store.byHash(hash);
    if (!c) throw new ApiError('contact_not_found', 404, `Contact not found: ${hash}`);
    return c;
  };
  const byAddressParam = (req: RouteRequest<unknown, unknown>): ContactRow => resolveContact(store, req.params.address ?? '');

  const rowOf = (c: ContactRow, currency: string) => {
    const row = store.currency(c.id, currency);
    if (!row) throw new ApiError('currency_not_found', 404, `${label(c)} has no ${currency} line`);
    return row;
  };

  const fullView = (c: ContactRow): Record<string, unknown> => {
    const rows = store.currencies(c.id);
    const view = contactView(c, rows);
    const live = rows.filter((r) => r.status !== 'declined');
    const balanceOf = (currency: string) => {
      const t = core.totals(c.pubkey_hash, currency);
      return { received: formatMinor(t.received), sent: formatMinor(t.sent), net: formatMinor(t.received - t.sent) };
    };
    const primary = primaryRow(live);
    return {
      ...view,
      currencies: live.map((r) => ({ ...currencyView(r), balance: balanceOf(r.currency) })),
      balance: primary ? { currency: primary.currency, ...balanceOf(primary.currency) } : { currency: null, received: '0', sent: '0', net: '0' },
      restored: c.restored,
      last_seen_at: c.last_seen_at,
      suggested_name: c.suggested_name,
    };
  };

  // ---- GET /contacts?status=

  ctx.routes.add<unknown, Record<string, unknown>>({
    method: 'GET',
    path: '/api/v1/contacts',
    access: READ,
    response: contactListResponse,
    // `q` (ours): the contacts search's match (name, address, key hash prefix) within the status.
    query: { ...pageQuery, properties: { ...pageQuery.properties, status: { type: 'string' }, q: { type: 'string', maxLength: 200 } } },
    handler: (req) => {
      const raw = typeof req.query.status === 'string' && req.query.status !== '' ? req.query.status.toLowerCase() : 'accepted';
      if (!['pending', 'accepted', 'blocked', 'all'].includes(raw)) {
        throw new ApiError('invalid_status', 400, 'status must be pending, accepted, blocked or all', { field: 'status' });
      }
      const status = raw === 'all' ? null : (raw as ContactStatus);
      const { limit, offset } = page(req.query, LIST_CAP);
      const term = typeof req.query.q === 'string' ? req.query.q.trim() : '';
      const found = term ? store.search(term, limit, offset, status) : { rows: store.list(status, limit, offset), total: store.count(status) };
      const contacts = found.rows.map((c) => contactView(c, store.currencies(c.id)));
      return { contacts, count: contacts.length, total: found.total, limit, offset };
    },
  });

  // ---- POST /contacts

  ctx.routes.add<Body>({
    method: 'POST',
    path: '/api/v1/contacts',
    response: contactCreatedResponse,
    access: WRITE,
    body: { type: 'object', required: ['address', 'name'] },
    handler: async (req) => {
      const b = req.body;
      const address = checkAddress(b.address);
      const name = checkName(b.name);
      const expected = b.pubkey_hash === undefined || b.pubkey_hash === null ? null : checkHash(b.pubkey_hash, 'pubkey_hash');
      const currency = checkAllowedCurrency(b.currency ?? core.defaultCurrency(), core.allowed());
      const terms = requestTerms(core, b, 'fee_percent', 'credit_limit');
      if (core.isOwnAddress(address) || expected === ctx.identity.pubkeyHash) throw selfContact();

      let existing = store.byAddress(address) ?? (expected ? store.byHash(expected) : null);
      if (expected && existing?.pubkey_hash && existing.pubkey_hash !== expected) throw identityMismatch(address, expected, existing.pubkey_hash);
      // The key comes from the address the operator typed, and only from there (docs/security.md).
      let hello = null;
      if (!existing?.pubkey_hash) {
        try {
          hello = await ctx.peer.hello(address);
        } catch (err) {
          ctx.log.info('contact not reachable on add; the request is queued', { address, error: err instanceof Error ? err.message : String(err) });
        }
        if (hello?.pubkeyHash === ctx.identity.pubkeyHash) throw selfContact();
        if (hello && expected && hello.pubkeyHash !== expected) throw identityMismatch(address, expected, hello.pubkeyHash);
        if (hello && !existing) existing = store.byHash(hello.pubkeyHash);
      }
      const key = hello ?? (expected ? { pubkeyHash: expected } : null);

      const result = ctx.db.tx(() => {
        let c = existing ? store.byId(existing.id) : null;
        if (c?.status === 'blocked') {
          throw new ApiError('contact_blocked', 409, `${label(c)} is blocked; unblock it first`);
        }
        if (!c) c = store.insert({ status: 'pending', name, ...(key ? { pubkey_hash: key.pubkeyHash } : {}) });
        if (hello) c = core.bindKey(c, hello);
        else if (key && !c.pubkey_hash) c = store.update(c.id, { pubkey_hash: key.pubkeyHash });
        c = core.placeAddresses(c, { [kindOf(address)]: address }, true);
        if (!c.name) c = store.update(c.id, { name });
        if (hello) core.addressTrust.propose(c, hello.addresses, false);
        const outcome = core.requestCurrency(c, currency, terms);
        return { c: store.byId(c.id)!, outcome: outcome.outcome, row: outcome.row };
      });
      const shown = result.c.name ?? name;
      if (result.outcome === 'accepted') {
        return created({ message: `${shown} had asked to connect in ${currency}: accepted (mutual request)`, status: 'accepted', address, name: shown });
      }
      const message =
        result.outcome === 'resent'
          ? `Contact request to ${shown} in ${currency} sent again with the terms already stored (fee ${result.row.fee_percent ?? '0'}%, credit ${fmt(result.row.credit_limit)}); change them with PUT /api/v1/contacts/${encodeURIComponent(address)}`
          : hello || existing?.pubkey_hash
            ? `Contact request sent to ${shown} in ${currency}`
            : `Contact request to ${shown} in ${currency} queued: the node is not reachable now, delivery will be retried`;
      return created({ message, status: 'pending', address, name: shown });
    },
  });

  // ---- GET /contacts/pending

  // limit and offset page each list (incoming and outgoing) alike; counts are the totals of each.
  ctx.routes.add<unknown, Record<string, unknown>>({
    method: 'GET',
    path: '/api/v1/contacts/pending',
    access: READ,
    response: pendingResponse,
    query: pageQuery,
    handler: (req) => {
      const { limit, offset } = page(req.query, LIST_CAP);
      const list = (direction: 'incoming' | 'outgoing') =>
        store.withRows('pending', direction, limit, offset).map((c) => pendingView(c, store.currencies(c.id), direction));
      const counts = { incoming: store.countWithRows('pending', 'incoming'), outgoing: store.countWithRows('pending', 'outgoing') };
      return {
        pending: { incoming: list('incoming'), outgoing: list('outgoing') },
        counts: { ...counts, total: counts.incoming + counts.outgoing },
        limit,
        offset,
      };
    },
  });

  // ---- GET /contacts/search?q=

  ctx.routes.add<unknown, Record<string, unknown>>({
    method: 'GET',
    path: '/api/v1/contacts/search',
    access: READ,
    response: contactSearchResponse,
    query: { ...pageQuery, properties: { ...pageQuery.properties, q: { type: 'string' }, query: { type: 'string' } } },
    handler: (req) => {
      const raw = [req.query.q, req.query.query].find((v) => typeof v === 'string' && v.trim() !== '') as string | undefined;
      if (raw === undefined) throw new ApiError('missing_field', 400, 'Missing required field: q (or query)', { field: 'q' });
      const term = raw.trim().slice(0, 200);
      const { limit, offset } = page(req.query, SEARCH_CAP);
      const { rows, total } = store.search(term, limit, offset);
      const contacts = rows.map((c) => searchView(c, store.currencies(c.id)));
      return { search_term: term, contacts, count: contacts.length, total };
    },
  });

  // ---- POST /contacts/ping/:address

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/contacts/ping/:address',
    response: pingResponse,
    access: READ,
    handler: async (req) => {
      const c = byAddressParam(req);
      if (c.status === 'blocked') throw new ApiError('contact_blocked', 409, `${label(c)} is blocked; unblock it to ping`);
      return pinger.ping(c);
    },
  });

  // ---- GET /contacts/:address

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/contacts/:address',
    access: READ,
    response: contactResponse,
    handler: (req) => ({ contact: fullView(byAddressParam(req)) }),
  });

  // ---- PUT /contacts/:address (local only)

  ctx.routes.add<Body>({
    method: 'PUT',
    path: '/api/v1/contacts/:address',
    response: contactUpdatedResponse,
    access: WRITE,
    body: anyObject,
    handler: (req) => {
      const b = req.body;
      const c = byAddressParam(req);
      const has = (k: string): boolean => b[k] !== undefined && b[k] !== null;
      if (!has('name') && !has('fee_percent') && !has('credit_limit')) {
        throw new ApiError('no_fields', 400, 'Nothing to update: give name, or currency with fee_percent and/or credit_limit');
      }
      if ((has('fee_percent') || has('credit_limit')) && !has('currency')) {
        throw new ApiError('missing_currency', 400, 'currency is required when fee_percent or credit_limit is given');
      }
      const name = has('name') ? checkName(b.name) : null;
      const fee = has('fee_percent') ? core.fee(b.fee_percent, 'fee_percent') : null;
      const credit = has('credit_limit') ? checkCredit(b.credit_limit) : null;
      const currency = has('currency') ? checkCurrencyCode(b.currency) : null;
      const result = ctx.db.tx(() => {
        let row = currency ? rowOf(c, currency) : null;
        if (row && row.status === 'pending' && row.direction === 'incoming' && (fee !== null || credit !== null)) {
          throw new ApiError('currency_not_accepted', 400, `${row.currency} is a pending request from the contact: accept it with its terms instead`);
        }
        const contact = name ? store.update(c.id, { name }) : c;
        if (row && (fee !== null || credit !== null)) {
          row = store.updateCurrency(c.id, row.currency, { ...(fee !== null ? { fee_percent: fee } : {}), ...(credit !== null ? { credit_limit: credit } : {}) })!;
        }
        return { contact, row };
      });
      const changed = [name ? 'name' : null, fee !== null ? 'fee' : null, credit !== null ? 'credit limit' : null].filter(Boolean).join(', ');
      return {
        message: `Contact ${label(result.contact)} updated (${changed}); the change is local, the contact is not notified`,
        updated: {
          address: primaryAddress(result.contact),
          name: result.contact.name,
          fee_percent: result.row?.fee_percent != null ? Number(result.row.fee_percent) : null,
          credit_limit: result.row ? fmt(result.row.credit_limit) : null,
          currency: result.row?.currency ?? null,
        },
      };
    },
  });

  // ---- DELETE /contacts/:address (local only)

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/contacts/:address',
    response: contactActionResponse,
    access: WRITE,
    handler: (req) => {
      const c = byAddressParam(req);
      ctx.db.tx(() => store.delete(c.id));
      ctx.events.publish('contacts.deleted', { pubkey_hash: c.pubkey_hash });
      return { message: `Contact ${label(c)} deleted`, address: primaryAddress(c) };
    },
  });

  // ---- POST /contacts/block/:address and /unblock/:address

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/contacts/block/:address',
    response: contactActionResponse,
    access: WRITE,
    handler: (req) => {
      const c = byAddressParam(req);
      if (c.status === 'blocked') return { message: `Contact ${label(c)} was already blocked`, address: primaryAddress(c) };
      ctx.db.tx(() => store.update(c.id, { status: 'blocked', status_before_block: c.status }));
      ctx.events.publish('contacts.blocked', { pubkey_hash: c.pubkey_hash });
      return { message: `Contact ${label(c)} blocked: its messages are refused`, address: primaryAddress(c) };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/contacts/unblock/:address',
    response: contactActionResponse,
    access: WRITE,
    handler: (req) => {
      const c = byAddressParam(req);
      if (c.status !== 'blocked') return { message: `Contact ${label(c)} is not blocked`, address: primaryAddress(c), status: c.status };
      const back: ContactStatus = c.status_before_block === 'accepted' ? 'accepted' : 'pending';
      ctx.db.tx(() => store.update(c.id, { status: back, status_before_block: null }));
      ctx.events.publish('contacts.unblocked', { pubkey_hash: c.pubkey_hash });
      return { message: `Contact ${label(c)} unblocked (back to ${back})`, address: primaryAddress(c), status: back };
    },
  });

  // ---- POST /contacts/:hash/decisions

  ctx.routes.add<Body>({
    method: 'POST',
    path: '/api/v1/contacts/:hash/decisions',
    response: decisionsResponse,
    access: WRITE,
    body: { type: 'object', required: ['decisions'] },
    handler: async (req) => {
      const c = byHashParam(req);
      const b = req.body;
      if (!Array.isArray(b.decisions)) throw new ApiError('validation_error', 400, 'decisions must be an array of {currency, action, fee, credit}', { field: 'decisions' });
      if (b.decisions.length === 0) throw new ApiError('validation_error', 400, 'decisions must hold at least one entry', { field: 'decisions' });
      if (b.decisions.length > 100) throw new ApiError('validation_error', 400, 'at most 100 decisions at once', { field: 'decisions' });
      if (c.status === 'blocked') throw new ApiError('contact_blocked', 409, `${label(c)} is blocked; unblock it first`);

      const errors: DecisionError[] = [];
      const seen = new Set<string>();
      const accepts: { currency: string; fee: unknown; credit: unknown }[] = [];
      const declines: string[] = [];
      const deferred: string[] = [];
      for (const raw of b.decisions as unknown[]) {
        const d = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
        let currency: string;
        try {
          currency = checkCurrencyCode(d.currency);
        } catch (err) {
          errors.push({ currency: typeof d.currency === 'string' ? d.currency : null, code: 'invalid_currency', message: (err as Error).message });
          continue;
        }
        if (seen.has(currency.toLowerCase())) {
          errors.push({ currency, code: 'duplicate_decision', message: `${currency} appears more than once` });
          continue;
        }
        seen.add(currency.toLowerCase());
        const action = typeof d.action === 'string' ? d.action.toLowerCase() : '';
        if (action === 'accept') accepts.push({ currency, fee: d.fee, credit: d.credit });
        else if (action === 'decline') declines.push(currency);
        else if (action === 'defer') deferred.push(currency);
        else errors.push({ currency, code: 'invalid_action', message: 'action must be accept, decline or defer' });
      }

      // While the contact is pending, the first accept establishes it: the name and address must be given.
      let name: string | null = null;
      let confirmed: string | null = null;
      if (c.status === 'pending' && accepts.length > 0) {
        for (const f of ['is_new_contact', 'contact_address', 'contact_name']) {
          if (b[f] === undefined || b[f] === null) throw new ApiError('missing_field', 400, `Missing required field: ${f} (required while the contact is pending)`, { field: f });
        }
        if (typeof b.is_new_contact !== 'boolean') throw new ApiError('validation_error', 400, 'is_new_contact must be a boolean', { field: 'is_new_contact' });
        name = checkName(b.contact_name, 'contact_name');
        confirmed = await core.confirmAddress(c, b.contact_address);
      }

      const declined: string[] = [];
      for (const currency of declines) {
        try {
          ctx.db.tx(() => {
            const row = store.currency(c.id, currency);
            if (!row) throw new ApiError('currency_not_found', 404, `No ${currency} request from this contact`);
            core.declineRow(store.byId(c.id)!, row, false);
            declined.push(row.currency);
          });
        } catch (err) {
          errors.push(decisionError(currency, err, ctx.log));
        }
      }
      const accepted: string[] = [];
      for (const a of accepts) {
        try {
          const row = store.currency(c.id, a.currency);
          if (!row) throw new ApiError('currency_not_found', 404, `No ${a.currency} request from this contact`);
          if (row.status !== 'pending' || row.direction !== 'incoming') {
            throw new ApiError('currency_not_pending', 400, `${row.currency} is not a pending request from this contact (${row.status}, ${row.direction})`);
          }
          const terms = core.acceptTerms(row, a.fee, a.credit);
          core.allowCurrency(row.currency);
          ctx.db.tx(() => core.acceptRow(store.byId(c.id)!, store.currency(c.id, a.currency)!, terms, name, confirmed));
          accepted.push(row.currency);
        } catch (err) {
          errors.push(decisionError(a.currency, err, ctx.log));
        }
      }
      return { accepted, declined, deferred, errors, ...(declined.length ? deliveryNotice(core, c) : {}) };
    },
  });

  // ---- POST /contacts/:hash/decline (idempotent)

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/contacts/:hash/decline',
    response: declineResponse,
    access: WRITE,
    handler: (req) => {
      const c = byHashParam(req);
      const declined: string[] = [];
      const errors: DecisionError[] = [];
      for (const row of store.currencies(c.id)) {
        if (row.status !== 'pending' || row.direction !== 'incoming') continue;
        try {
          ctx.db.tx(() => core.declineRow(store.byId(c.id)!, store.currency(c.id, row.currency)!, false));
          declined.push(row.currency);
        } catch (err) {
          errors.push(decisionError(row.currency, err, ctx.log));
        }
      }
      if (errors.length) {
        throw new ApiError('partial_decline_failure', 500, `${errors.length} of ${errors.length + declined.length} currencies could not be declined`, { declined, errors });
      }
      const fresh = store.byId(c.id)!;
      if (declined.length && fresh.status === 'pending') ctx.db.tx(() => core.enqueueDecline(fresh));
      return {
        message: declined.length ? `Contact request from ${label(c)} declined (${declined.join(', ')})` : `Nothing pending from ${label(c)}`,
        declined,
        ...(declined.length ? deliveryNotice(core, c) : {}),
      };
    },
  });

  // ---- currencies of a contact

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/contacts/:hash/currencies',
    response: currencyListResponse,
    access: READ,
    handler: (req) => {
      const c = byHashParam(req);
      return { pubkey_hash: c.pubkey_hash, currencies: store.currencies(c.id).map(currencyListView) };
    },
  });

  ctx.routes.add<Body>({
    method: 'POST',
    path: '/api/v1/contacts/:hash/currencies',
    response: currencyActionResponse,
    access: WRITE,
    body: { type: 'object', required: ['currency'] },
    handler: (req) => {
      const c = byHashParam(req);
      const b = req.body;
      const currency = checkAllowedCurrency(b.currency, core.allowed());
      const terms = requestTerms(core, b, 'fee', 'credit');
      if (c.status === 'blocked') throw new ApiError('contact_blocked', 409, `${label(c)} is blocked; unblock it first`);
      const existing = store.currency(c.id, currency);
      if (existing?.status === 'accepted') throw new ApiError('currency_exists', 409, `${label(c)} already has an accepted ${existing.currency} line`);
      const { outcome, row } = core.requestCurrency(c, currency, terms);
      const message =
        outcome === 'accepted'
          ? `${label(c)} had requested ${row.currency}: accepted (mutual request)`
          : outcome === 'resent'
            ? `${row.currency} request to ${label(c)} sent again`
            : `${row.currency} requested from ${label(c)}`;
      return created({ message, currency: row.currency, status: row.status });
    },
  });

  ctx.routes.add<Body>({
    method: 'POST',
    path: '/api/v1/contacts/:hash/currency-accept',
    response: decisionsResponse,
    access: WRITE,
    body: { type: 'object', required: ['currency'] },
    handler: (req) => {
      const c = byHashParam(req);
      const b = req.body;
      const currency = checkCurrencyCode(b.currency);
      if (c.status === 'blocked') throw new ApiError('contact_blocked', 409, `${label(c)} is blocked; unblock it first`);
      const row = rowOf(c, currency);
      if (row.status !== 'pending' || row.direction !== 'incoming') {
        throw new ApiError('currency_not_pending', 400, `${row.currency} is not a pending request from this contact (${row.status}, ${row.direction})`);
      }
      const name = b.contact_name !== undefined && b.contact_name !== null ? checkName(b.contact_name, 'contact_name') : null;
      const terms = core.acceptTerms(row, b.fee, b.credit);
      core.allowCurrency(row.currency);
      ctx.db.tx(() => core.acceptRow(store.byId(c.id)!, store.currency(c.id, currency)!, terms, name));
      return { accepted: [row.currency], declined: [], errors: [] };
    },
  });

  ctx.routes.add<Body>({
    method: 'POST',
    path: '/api/v1/contacts/:hash/currency-decline',
    response: currencyActionResponse,
    access: WRITE,
    body: { type: 'object', required: ['currency'] },
    handler: (req) => {
      const c = byHashParam(req);
      const currency = checkCurrencyCode(req.body.currency);
      const row = rowOf(c, currency);
      if (row.status === 'declined') return { message: `${row.currency} was already declined`, currency: row.currency };
      ctx.db.tx(() => core.declineRow(c, row, true));
      const verb = row.direction === 'incoming' ? 'declined' : 'withdrawn';
      const notice = deliveryNotice(core, c);
      const told = notice.notice ? 'is not notified (no trusted address)' : 'is notified';
      return { message: `${row.currency} request ${verb}; ${label(c)} ${told}`, currency: row.currency, ...notice };
    },
  });

  ctx.routes.add<Body>({
    method: 'POST',
    path: '/api/v1/contacts/:hash/currency-remove',
    response: currencyActionResponse,
    access: WRITE,
    body: { type: 'object', required: ['currency'] },
    handler: (req) => {
      const c = byHashParam(req);
      const currency = checkCurrencyCode(req.body.currency);
      const row = rowOf(c, currency);
      ctx.db.tx(() => store.deleteCurrency(c.id, row.currency));
      return { message: `${row.currency} removed from ${label(c)} locally; the contact is not notified`, currency: row.currency };
    },
  });
}

/** fee/credit (under the given field names) with the settings' defaults, and the requested-credit fields. */
function requestTerms(core: ContactsCore, b: Body, feeField: string, creditField: string): RequestTerms {
  const given = (k: string): boolean => b[k] !== undefined && b[k] !== null;
  const fee = given(feeField) ? core.fee(b[feeField], feeField) : core.defaultFee();
  const credit = given(creditField) ? checkCredit(b[creditField], creditField) : core.defaultCredit();
  const requested = given('requested_credit_limit') ? checkCredit(b.requested_credit_limit, 'requested_credit_limit') : null;
  if (b.requested_credit_enforced !== undefined && b.requested_credit_enforced !== null && typeof b.requested_credit_enforced !== 'boolean') {
    throw new ApiError('validation_error', 400, 'requested_credit_enforced must be a boolean', { field: 'requested_credit_enforced' });
  }
  const enforced = b.requested_credit_enforced === true && requested !== null;
  const description = checkDescription(b.description);
  return { fee, credit, requested, enforced, description };
}

const selfContact = (): ApiError => new ApiError('self_contact', 400, 'You cannot add your own node as a contact');

/** Our extension: the operator named the key it expects (out of band) and another one holds that address. */
const identityMismatch = (address: string, expected: string, found: string): ApiError =>
  new ApiError('identity_mismatch', 409, `The node at ${address} has the key ${found}, not the expected ${expected}`, {
    field: 'pubkey_hash',
    expected,
    found,
  });

/**
 * A per-currency failure as the response lists it. The response gives an unexpected error only as
 * `internal_error` with a generic message, so its cause is logged here; nothing else would record it.
 */
function decisionError(currency: string, err: unknown, log: Logger): DecisionError {
  if (err instanceof ApiError) return { currency, code: err.code, message: err.message };
  log.error('a contact decision failed', { currency, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return { currency, code: 'internal_error', message: 'the decision could not be applied' };
}
