/**
 * Peer handlers of the contact message types and the outcomes of the ones we queue. Every handler is
 * idempotent: the kernel answers an exact retry (same message id) from its record, and a new message about a
 * state already reached answers the same way without changing anything.
 */
import { PeerRefusal, type InboundPeerMessage, type PeerReply, type QueuedPeerMessage } from '../../sdk/index.js';
import { MAX_CREDIT, formatMinor, parseDecimal, type Minor } from '../../sdk/money.js';
import { normalizeAddress } from '../../sdk/address.js';
import { normalizeCurrency } from '../../sdk/currency.js';
import { CONTACT_EVENTS } from './api.js';
import type { ContactsCore } from './core.js';
import { MSG, type AcceptPayload, type CurrencyDeclinePayload, type RequestPayload } from './protocol.js';
import type { ContactRow, CurrencyRow } from './store.js';
import { MAX_DESCRIPTION, NAME_RULE, allowedMatch } from './validate.js';

const CONTACT_LABEL = 'contact';
/** Currencies one unknown key may have waiting for the operator's decision (each is a row a stranger made). */
export const MAX_PENDING_CURRENCIES = 16;

function wireCurrency(value: unknown): string {
  const code = typeof value === 'string' ? normalizeCurrency(value) : null;
  if (!code) throw new PeerRefusal('invalid_request', 'currency must be 3-10 letters or digits');
  return code;
}

function wireAmount(value: unknown, field: string, optional: boolean): Minor | null {
  if (value === undefined || value === null) {
    if (optional) return null;
    throw new PeerRefusal('invalid_request', `${field} is required`);
  }
  const r = parseDecimal(value);
  if (!r.ok || r.value > MAX_CREDIT) throw new PeerRefusal('invalid_request', `${field} must be a decimal amount`);
  return r.value;
}

export function registerMessages(core: ContactsCore): void {
  const { ctx, store } = core;

  /** Messages of a blocked key are refused before any handler (of any plugin) runs. */
  ctx.peer.filter((sender) => {
    const c = store.byHash(sender.pubkeyHash);
    return c?.status === 'blocked' ? new PeerRefusal('blocked', 'this node does not accept messages from you') : null;
  });

  /** The sender as a known, unblocked contact; types that need a contact refuse unknown keys. */
  const knownSender = (m: InboundPeerMessage): ContactRow => {
    const c = core.findSender(m.sender);
    if (!c) throw new PeerRefusal('unknown_contact', 'this node has no contact with your key');
    if (c.status === 'blocked') throw new PeerRefusal('blocked', 'this node does not accept messages from you');
    return core.learn(c, m.sender);
  };

  const seen = (c: ContactRow): void => {
    store.update(c.id, { last_seen_at: core.nowIso(), online_status: 'online' });
  };

  const acceptedReply = (c: ContactRow, row: CurrencyRow): Record<string, unknown> => ({
    status: 'accepted',
    currency: row.currency,
    credit_limit: formatMinor(row.credit_limit ?? 0n),
    available_credit: formatMinor(core.availableFor(c.pubkey_hash, row)),
  });

  /** Marks our outgoing row accepted with what the peer extends (an acceptance, a mutual request, a pong). */
  const markAccepted = (c: ContactRow, row: CurrencyRow, credit: Minor | null, available: Minor | null): void => {
    const unmet = row.requested_enforced && row.requested_credit !== null && credit !== null && credit < row.requested_credit;
    store.updateCurrency(c.id, row.currency, {
      status: 'accepted',
      decline_reason: null,
      request_delivered: true,
      ...(credit !== null ? { peer_extends: credit, requested_min_unmet: unmet } : {}),
      ...(available !== null ? { my_available_credit: available, available_at: core.nowIso() } : {}),
    });
    if (c.status === 'pending') store.update(c.id, { status: 'accepted', name: c.name ?? core.fallbackName(c) });
    ctx.db.afterCommit(() => {
      if (c.status === 'pending') ctx.events.publish(CONTACT_EVENTS.accepted, { pubkey_hash: c.pubkey_hash });
      ctx.events.publish(CONTACT_EVENTS.currencyAccepted, { pubkey_hash: c.pubkey_hash, currency: row.currency });
    });
  };

  // ---- contact.request: a new contact, or one more currency with a known one

  ctx.peer.handle(MSG.request, (m) => {
    const p = m.payload as RequestPayload;
    const wanted = wireCurrency(p.currency);
    const requested = wireAmount(p.requested_credit_limit, 'requested_credit_limit', true);
    const enforced = p.requested_credit_enforced === true && requested !== null;
    if (p.description !== undefined && (typeof p.description !== 'string' || [...p.description].length > MAX_DESCRIPTION)) {
      throw new PeerRefusal('invalid_request', `description must be a string of at most ${MAX_DESCRIPTION} characters`);
    }
    const description = typeof p.description === 'string' && p.description.trim() !== '' ? p.description : null;
    const senderName = typeof p.sender_name === 'string' && NAME_RULE.test(p.sender_name.trim()) ? p.sender_name.trim() : null;
    const allowedSpelling = allowedMatch(wanted, core.allowed());
    if (!allowedSpelling && ctx.settings.get<boolean>('autoRejectUnknownCurrency')) {
      throw new PeerRefusal('currency_not_allowed', `this node does not accept contact requests in ${wanted}`);
    }
    const currency = allowedSpelling ?? wanted;
    return ctx.db.tx(() => {
      let c = core.findSender(m.sender);
      if (c?.status === 'blocked') throw new PeerRefusal('blocked', 'this node does not accept messages from you');
      if (!c) {
        core.makeRoomForStranger();
        c = store.insert({
          status: 'pending',
          pubkey_hash: m.sender.pubkeyHash,
          pubkey: m.sender.publicKey.toString('base64url'),
          sealing_key: m.sender.sealingKey.toString('base64url'),
          suggested_name: senderName,
        });
        core.keylessClaimedBy(m.sender);
      }
      c = core.learn(c, m.sender);
      if (senderName && c.suggested_name !== senderName) c = store.update(c.id, { suggested_name: senderName });
      seen(c);
      const row = store.currency(c.id, currency);
      if (row?.status === 'accepted') return acceptedReply(c, row);
      if (row?.status === 'pending' && row.direction === 'outgoing') {
        // Both asked: the crossing requests accept each other with the terms each side typed.
        markAccepted(c, row, null, null);
        const accepted = store.currency(c.id, currency)!;
        ctx.log.info('mutual contact request accepted', { pubkey_hash: c.pubkey_hash, currency });
        return acceptedReply(store.byId(c.id)!, accepted);
      }
      if (!row && c.status === 'pending' && store.pendingIncomingRows(c.id) >= MAX_PENDING_CURRENCIES) {
        throw new PeerRefusal('too_many_requests', `at most ${MAX_PENDING_CURRENCIES} currencies may wait for a decision at once`);
      }
      const fields = {
        status: 'pending' as const,
        direction: 'incoming' as const,
        fee_percent: null,
        credit_limit: null,
        requested_credit: requested,
        requested_enforced: enforced,
        description,
        warning: allowedSpelling ? null : 'currency_not_allowed',
        decline_reason: null,
        request_delivered: false,
        requested_min_unmet: false,
        my_available_credit: null,
        peer_extends: null,
      };
      if (row) store.updateCurrency(c.id, row.currency, fields);
      else store.insertCurrency(c.id, { currency, ...fields });
      const waiting = { pubkey_hash: m.sender.pubkeyHash, currency };
      ctx.db.afterCommit(() => ctx.events.publish(CONTACT_EVENTS.requestReceived, waiting));
      return { status: 'received', currency, ...(allowedSpelling ? {} : { warning: 'currency_not_allowed' }) };
    });
  });

  // ---- contact.accept: the peer accepted our request for a currency

  ctx.peer.handle(MSG.accept, (m) => {
    const p = m.payload as AcceptPayload;
    const currency = wireCurrency(p.currency);
    const credit = wireAmount(p.credit_limit, 'credit_limit', false);
    const available = wireAmount(p.available_credit, 'available_credit', false);
    return ctx.db.tx(() => {
      const c = knownSender(m);
      seen(c);
      const row = store.currency(c.id, currency);
      if (!row || row.status === 'declined' || (row.status === 'pending' && row.direction === 'incoming')) {
        throw new PeerRefusal('no_request', `this node has no pending request for ${currency} with you`);
      }
      markAccepted(c, row, credit, available);
      return acceptedReply(store.byId(c.id)!, store.currency(c.id, currency)!);
    });
  });

  // ---- contact.currency_decline: the peer declined our request, or withdrew its own

  ctx.peer.handle(MSG.currencyDecline, (m) => {
    const p = m.payload as CurrencyDeclinePayload;
    const currency = wireCurrency(p.currency);
    return ctx.db.tx(() => {
      const c = knownSender(m);
      seen(c);
      const row = store.currency(c.id, currency);
      if (!row) return { status: 'unknown_currency', currency };
      if (row.status !== 'pending') return { status: row.status === 'declined' ? 'declined' : 'ignored', currency: row.currency };
      store.updateCurrency(c.id, row.currency, { status: 'declined', decline_reason: p.reason === 'withdrawn' ? 'withdrawn_by_peer' : 'declined_by_peer' });
      ctx.db.afterCommit(() => ctx.events.publish(CONTACT_EVENTS.declined, { pubkey_hash: c.pubkey_hash, currency: row.currency }));
      return { status: 'declined', currency: row.currency };
    });
  });

  // ---- contact.decline: the peer declined our contact request as a whole

  ctx.peer.handle(MSG.decline, (m) => {
    return ctx.db.tx(() => {
      const c = knownSender(m);
      seen(c);
      const declined: string[] = [];
      for (const row of store.currencies(c.id)) {
        if (row.status === 'pending' && row.direction === 'outgoing') {
          store.updateCurrency(c.id, row.currency, { status: 'declined', decline_reason: 'declined_by_peer' });
          declined.push(row.currency);
        }
      }
      if (declined.length) ctx.db.afterCommit(() => ctx.events.publish(CONTACT_EVENTS.declined, { pubkey_hash: c.pubkey_hash }));
      return { status: 'declined', currencies: declined };
    });
  });

  // ---- contact.addresses: the peer's addresses changed (its hostname setting did)

  ctx.peer.handle(MSG.addresses, (m) => {
    return ctx.db.tx(() => {
      const c = knownSender(m);
      seen(c);
      // A move takes effect once the new address answers with a hello signed by this same key.
      core.addressTrust.propose(c, m.sender.addresses, true);
      return { status: 'verifying', addresses: core.addresses(c) };
    });
  });

  // ---- outcomes of what we queued

  /**
   * The contact a queued message went to: the one with the key it was sealed to; for a message queued while
   * the contact had no key, the contact at the address it was sent to (it may have learned its key since).
   */
  const recipientOf = (message: QueuedPeerMessage, reply: PeerReply | null): ContactRow | null => {
    const hash = message.target.pubkeyHash ?? null;
    if (hash) return store.byHash(hash);
    for (const raw of Object.values(message.target.addresses)) {
      const normalized = raw ? normalizeAddress(raw) : null;
      const c = normalized ? store.byAddress(normalized) : null;
      if (c && (!c.pubkey_hash || c.pubkey_hash === reply?.sender.pubkeyHash)) return c;
    }
    return null;
  };

  ctx.peer.outcomes(MSG.request, {
    label: CONTACT_LABEL,
    retryable: true,
    delivered: (message, reply) => {
      const p = message.payload as RequestPayload;
      ctx.db.tx(() => {
        let c = recipientOf(message, reply);
        if (!c) return;
        c = core.answered(c, reply.sender);
        const row = store.currency(c.id, p.currency);
        if (!row || row.direction !== 'outgoing') return;
        if (reply.data.status === 'accepted') {
          const credit = wireSafe(reply.data.credit_limit);
          const available = wireSafe(reply.data.available_credit);
          if (row.status === 'pending') markAccepted(c, row, credit, available);
          else if (row.status === 'accepted') {
            store.updateCurrency(c.id, row.currency, {
              request_delivered: true,
              ...(credit !== null ? { peer_extends: credit } : {}),
              ...(available !== null ? { my_available_credit: available, available_at: core.nowIso() } : {}),
            });
          }
        } else if (row.status === 'pending') {
          store.updateCurrency(c.id, row.currency, { request_delivered: true, ...(typeof reply.data.warning === 'string' ? { warning: `peer: ${reply.data.warning}` } : {}) });
        }
      });
    },
    refused: (message, reply) => {
      const p = message.payload as RequestPayload;
      ctx.db.tx(() => {
        let c = recipientOf(message, reply);
        if (!c) return;
        c = core.answered(c, reply.sender);
        const row = store.currency(c.id, p.currency);
        if (row && row.status === 'pending' && row.direction === 'outgoing') {
          store.updateCurrency(c.id, row.currency, { status: 'declined', decline_reason: reply.error?.code ?? 'refused', request_delivered: true });
        }
      });
      ctx.log.warn('contact request refused by the peer', { currency: p.currency, code: reply.error?.code, message: reply.error?.message });
    },
    dead: (message, reason) => {
      ctx.log.warn('contact request could not be delivered; it is in the dead letter queue', { message_id: message.id, reason });
    },
  });

  ctx.peer.outcomes(MSG.accept, {
    label: CONTACT_LABEL,
    retryable: true,
    delivered: (message, reply) => {
      const p = message.payload as AcceptPayload;
      ctx.db.tx(() => {
        const c = recipientOf(message, reply);
        if (!c) return;
        const row = store.currency(c.id, p.currency);
        if (!row || row.status !== 'accepted') return;
        const credit = wireSafe(reply.data.credit_limit);
        const available = wireSafe(reply.data.available_credit);
        store.updateCurrency(c.id, row.currency, {
          ...(credit !== null ? { peer_extends: credit } : {}),
          ...(available !== null ? { my_available_credit: available, available_at: core.nowIso() } : {}),
        });
      });
    },
    refused: (message, reply) => {
      ctx.log.warn('contact acceptance refused by the peer', { currency: (message.payload as AcceptPayload).currency, code: reply.error?.code });
    },
    dead: (message, reason) => {
      ctx.log.warn('contact acceptance could not be delivered; it is in the dead letter queue', { message_id: message.id, reason });
    },
  });

  for (const type of [MSG.currencyDecline, MSG.decline, MSG.addresses]) {
    ctx.peer.outcomes(type, {
      label: CONTACT_LABEL,
      retryable: true,
      refused: (_message, reply) => ctx.log.warn(`${type} refused by the peer`, { code: reply.error?.code }),
      dead: (message, reason) => ctx.log.warn(`${type} could not be delivered; it is in the dead letter queue`, { message_id: message.id, reason }),
    });
  }
}

/** An amount from a reply, or null when absent or malformed (a reply never fails our hook). */
export function wireSafe(value: unknown): Minor | null {
  if (value === undefined || value === null) return null;
  const r = parseDecimal(value);
  return r.ok && r.value <= MAX_CREDIT ? r.value : null;
}
