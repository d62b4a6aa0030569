/**
 * Ping and pong: the status exchange between two contacts. The pinger sends its chain heads per currency and
 * the currencies it holds with the peer; the responder answers (synchronously, in the sealed reply) with its
 * heads, chain validity per currency, the credit it extends to the pinger and what of it is available, and
 * the currencies it holds (peerKnownCurrencies). The pinger stores `my_available_credit` per currency and
 * reconciles the drift a lost notice may have left: an outgoing request the peer accepted becomes accepted, a
 * delivered one the peer no longer knows becomes declined.
 *
 * The status cycle pings every accepted contact once per 5 minutes, one at a time, spread evenly over the cycle,
 * while `contactStatusEnabled`.
 */
import { PeerDeliveryError, PeerRefusal, type InboundPeerMessage } from '../../sdk/index.js';
import { formatMinor, type Minor } from '../../sdk/money.js';
import { normalizeCurrency, sameCurrency } from '../../sdk/currency.js';
import { CONTACT_EVENTS } from './api.js';
import type { ContactsCore } from './core.js';
import { wireSafe } from './messages.js';
import { MSG, type PingPayload, type PongData } from './protocol.js';
import type { ContactRow, CurrencyRow, OnlineStatus } from './store.js';
import { allowedMatch } from './validate.js';

export const STATUS_CYCLE_MS = 5 * 60_000;
/** The shortest gap between two pings of the cycle (thousands of contacts share the 5 minutes). */
const MIN_STEP_MS = 100;
const MAX_WIRE_CURRENCIES = 100;

export interface PingResult {
  contact_name: string | null;
  online_status: OnlineStatus;
  /** Document 1 types it boolean: true only when a pong (now, or the last one when offline) verified every chain. */
  chain_valid: boolean;
  message: string;
  /** Per accepted currency: what the contact lets this node use (my_available_credit), as just learned. */
  my_available_credit: Record<string, string | null>;
}

const allTrue = (m: Record<string, boolean>): boolean => Object.values(m).every(Boolean);

function wireHeads(value: unknown): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [k, v] of Object.entries(value).slice(0, MAX_WIRE_CURRENCIES)) {
    const code = normalizeCurrency(k);
    if (code && (v === null || (typeof v === 'string' && v.length <= 128))) out[code] = v as string | null;
  }
  return out;
}

function wireCodes(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, MAX_WIRE_CURRENCIES)
    .map((v) => (typeof v === 'string' ? normalizeCurrency(v) : null))
    .filter((v): v is string => v !== null);
}

function lookup<T>(map: Record<string, T>, currency: string): T | undefined {
  for (const [k, v] of Object.entries(map)) if (sameCurrency(k, currency)) return v;
  return undefined;
}

/** Currencies we hold with a peer, as the pong defines them: accepted rows and pending incoming ones. */
const knownCurrencies = (rows: readonly CurrencyRow[]): string[] =>
  rows.filter((r) => r.status === 'accepted' || (r.status === 'pending' && r.direction === 'incoming')).map((r) => r.currency);

export class PingService {
  #cursor = 0;

  constructor(private readonly core: ContactsCore) {}

  heads(pubkeyHash: string | null): Record<string, string | null> {
    const provider = this.core.chainProvider;
    if (!pubkeyHash || !provider) return {};
    try {
      return provider.heads(pubkeyHash);
    } catch (err) {
      this.core.ctx.log.error('chain provider heads failed', { error: String(err) });
      return {};
    }
  }

  /**
   * Our chains with the contact checked against the heads it reported; each that does not agree is announced (chain
   * sync pulls it) when `announce`: the pinger's contactStatusSyncOnPing, which its ping carries as `request_sync`.
   */
  verify(pubkeyHash: string | null, remote: Record<string, string | null>, announce: boolean): Record<string, boolean> {
    const provider = this.core.chainProvider;
    if (!pubkeyHash || !provider) return {};
    let status: Record<string, boolean>;
    try {
      status = provider.verify(pubkeyHash, remote);
    } catch (err) {
      this.core.ctx.log.error('chain provider verify failed', { error: String(err) });
      return {};
    }
    for (const [currency, ok] of Object.entries(status)) {
      if (!ok && announce) this.core.ctx.events.publish(CONTACT_EVENTS.chainMismatch, { pubkey_hash: pubkeyHash, currency });
    }
    return status;
  }

  /** The pong for a known, unblocked contact. */
  pong(c: ContactRow, remoteHeads: Record<string, string | null>, sync: boolean): PongData {
    const rows = this.core.store.currencies(c.id);
    const chainStatus = this.verify(c.pubkey_hash, remoteHeads, sync);
    const available: Record<string, string> = {};
    const credit: Record<string, string> = {};
    for (const row of rows) {
      if (row.status !== 'accepted') continue;
      available[row.currency] = formatMinor(this.core.availableFor(c.pubkey_hash, row));
      credit[row.currency] = formatMinor(row.credit_limit ?? 0n);
    }
    return {
      status: 'pong',
      version: this.core.ctx.kernel.node.version,
      heads: this.heads(c.pubkey_hash),
      chain_valid: allTrue(chainStatus),
      chain_status: chainStatus,
      available_credit: available,
      credit_limit: credit,
      known_currencies: knownCurrencies(rows),
    };
  }

  /** The responder side of contact.ping. */
  register(): void {
    const { ctx, store } = this.core;
    ctx.peer.handle(MSG.ping, async (m) => {
      const p = m.payload as PingPayload;
      const remoteHeads = wireHeads(p.heads);
      let c = this.core.findSender(m.sender);
      const sync = p.request_sync !== false;
      if (!c) return this.#fromUnknown(m, remoteHeads, wireCodes(p.known_currencies), sync);
      if (c.status === 'blocked') throw new PeerRefusal('blocked', 'this node does not accept messages from you');
      c = ctx.db.tx(() => {
        const learned = this.core.learn(c!, m.sender);
        return store.update(learned.id, { last_seen_at: this.core.nowIso(), online_status: 'online' });
      });
      return { ...this.pong(c, remoteHeads, sync) };
    });
  }

  /**
   * A ping from a key we do not know: the pinger has us as a contact, so this may be our own wallet restored
   * from its seed (our database is new) or a contact we deleted. Rule (autoAcceptRestoredContact): the contact
   * is recorded with an incoming pending row for every currency the pinger holds with us; it is accepted at
   * once (default fee and credit) only when the setting is on and shared settled history is confirmed: held here
   * (ChainProvider.hasSharedHistory), or proved by the pinger's rows signed by this node (a history prover, chain
   * sync: the rows are kept, which is how a node restored from its seed gets its chains back). Otherwise the ping is refused with `unknown_contact` and the operator
   * decides through the pending list.
   */
  async #fromUnknown(m: InboundPeerMessage, heads: Record<string, string | null>, known: string[], sync: boolean): Promise<Record<string, unknown>> {
    const { ctx, store } = this.core;
    const autoReject = ctx.settings.get<boolean>('autoRejectUnknownCurrency');
    const allowed = this.core.allowed();
    const codes: string[] = [];
    for (const code of [...known, ...Object.keys(heads)]) {
      const spelled = allowedMatch(code, allowed) ?? (autoReject ? null : code);
      if (spelled && !codes.some((c) => sameCurrency(c, spelled))) codes.push(spelled);
    }
    if (codes.length === 0) throw new PeerRefusal('unknown_contact', 'this node has no contact with your key');
    let shared = false;
    if (ctx.settings.get<boolean>('autoAcceptRestoredContact')) {
      try {
        shared = (await this.core.chainProvider?.hasSharedHistory?.(m.sender.pubkeyHash, heads)) ?? false;
        // Our own database may be the one that is new: the pinger may prove the history with rows we signed.
        for (const prove of this.core.historyProvers) if (!shared) shared = await prove(m.sender, heads);
      } catch (err) {
        ctx.log.error('restore detection failed', { error: String(err) });
      }
    }
    const c = ctx.db.tx(() => {
      const existing = this.core.findSender(m.sender);
      if (existing) return existing;
      const label = `Restored ${m.sender.pubkeyHash.slice(0, 8)}`;
      if (!shared) this.core.makeRoomForStranger();
      const created = store.insert({
        status: shared ? 'accepted' : 'pending',
        pubkey_hash: m.sender.pubkeyHash,
        pubkey: m.sender.publicKey.toString('base64url'),
        sealing_key: m.sender.sealingKey.toString('base64url'),
        name: shared ? label : null,
        suggested_name: label,
        restored: true,
        last_seen_at: this.core.nowIso(),
        online_status: 'online',
      });
      this.core.addressTrust.propose(created, m.sender.addresses, false);
      for (const currency of codes) {
        store.insertCurrency(created.id, {
          currency,
          status: shared ? 'accepted' : 'pending',
          direction: 'incoming',
          fee_percent: shared ? this.core.defaultFee() : null,
          credit_limit: shared ? this.core.defaultCredit() : null,
          warning: allowedMatch(currency, allowed) ? 'restored_contact' : 'currency_not_allowed',
        });
      }
      ctx.log.info('ping from an unknown key recorded as a restored contact', { pubkey_hash: m.sender.pubkeyHash, accepted: shared });
      if (shared) ctx.db.afterCommit(() => ctx.events.publish(CONTACT_EVENTS.accepted, { pubkey_hash: m.sender.pubkeyHash }));
      return created;
    });
    if (c.status === 'accepted') return { ...this.pong(c, heads, sync) };
    throw new PeerRefusal('unknown_contact', 'this node does not know your key yet; a pending contact request was recorded', { restored_pending: true });
  }

  /** Pings a contact now and records what the pong says. */
  async ping(contact: ContactRow): Promise<PingResult> {
    const { ctx, store } = this.core;
    const rows = store.currencies(contact.id);
    const sync = ctx.settings.get<boolean>('contactStatusSyncOnPing') !== false;
    const payload: PingPayload = {
      type: MSG.ping,
      heads: this.heads(contact.pubkey_hash),
      request_sync: sync,
      known_currencies: knownCurrencies(rows),
    };
    const now = this.core.nowIso();
    let reply;
    try {
      reply = await ctx.peer.request(this.core.target(contact), payload);
    } catch (err) {
      const reason = err instanceof PeerDeliveryError ? `${err.code}: ${err.message}` : String(err);
      const c = store.byId(contact.id);
      if (c) store.update(c.id, { online_status: 'offline', last_ping_at: now });
      return {
        contact_name: contact.name,
        online_status: 'offline',
        chain_valid: contact.chain_valid === true,
        message: `Contact is offline (${reason})`,
        my_available_credit: this.#availableMap(contact.id),
      };
    }
    if (!reply.ok) {
      ctx.db.tx(() => {
        const c = store.byId(contact.id);
        if (c) store.update(this.core.answered(c, reply.sender).id, { online_status: 'online', last_ping_at: now });
      });
      return {
        contact_name: contact.name,
        online_status: 'online',
        chain_valid: contact.chain_valid === true,
        message: `Contact is online but refused the ping: ${reply.error?.code ?? 'refused'} (${reply.error?.message ?? ''})`,
        my_available_credit: this.#availableMap(contact.id),
      };
    }
    const pong = reply.data as Partial<PongData>;
    const remoteStatus: Record<string, boolean> = {};
    if (typeof pong.chain_status === 'object' && pong.chain_status !== null) {
      for (const [k, v] of Object.entries(pong.chain_status)) remoteStatus[k] = v === true;
    }
    const available = (typeof pong.available_credit === 'object' && pong.available_credit !== null ? pong.available_credit : {}) as Record<string, unknown>;
    const credit = (typeof pong.credit_limit === 'object' && pong.credit_limit !== null ? pong.credit_limit : {}) as Record<string, unknown>;
    const peerKnown = wireCodes(pong.known_currencies);
    const localStatus = this.verify(contact.pubkey_hash ?? reply.sender.pubkeyHash, wireHeads(pong.heads), sync);
    const chainValid = pong.chain_valid !== false && allTrue(remoteStatus) && allTrue(localStatus);
    const changes: string[] = [];
    ctx.db.tx(() => {
      let c = store.byId(contact.id);
      if (!c) return;
      c = this.core.answered(c, reply.sender);
      for (const row of store.currencies(c.id)) {
        const peerAvailable = wireSafe(lookup(available, row.currency));
        const peerCredit = wireSafe(lookup(credit, row.currency));
        const peerAccepted = lookup(available, row.currency) !== undefined;
        const peerKnows = peerKnown.some((k) => sameCurrency(k, row.currency));
        const rowChain = lookup(remoteStatus, row.currency) ?? lookup(localStatus, row.currency);
        if (row.status === 'pending' && row.direction === 'outgoing') {
          if (peerAccepted) {
            // The acceptance notice was lost or is still on its way: the pong says the line is open.
            this.#accept(c, row, peerCredit, peerAvailable);
            changes.push(`${row.currency} accepted by the peer`);
          } else if (!peerKnows && row.request_delivered) {
            store.updateCurrency(c.id, row.currency, { status: 'declined', decline_reason: 'unknown_to_peer' });
            changes.push(`${row.currency} request no longer known to the peer`);
          }
          continue;
        }
        if (row.status !== 'accepted') continue;
        const unmet = row.requested_enforced && row.requested_credit !== null && peerCredit !== null && peerCredit < row.requested_credit;
        store.updateCurrency(c.id, row.currency, {
          my_available_credit: peerAccepted ? peerAvailable : null,
          available_at: now,
          peer_extends: peerAccepted ? peerCredit : null,
          requested_min_unmet: unmet,
          chain_valid: rowChain === undefined ? null : rowChain,
        });
      }
      store.update(c.id, { online_status: 'online', last_ping_at: now, last_seen_at: now, chain_valid: chainValid });
    });
    return {
      contact_name: store.byId(contact.id)?.name ?? contact.name,
      online_status: 'online',
      chain_valid: chainValid,
      message: `Contact is online${chainValid ? '' : '; chains differ'}${changes.length ? `; ${changes.join('; ')}` : ''}`,
      my_available_credit: this.#availableMap(contact.id),
    };
  }

  #accept(c: ContactRow, row: CurrencyRow, credit: Minor | null, available: Minor | null): void {
    const { ctx, store } = this.core;
    store.updateCurrency(c.id, row.currency, {
      status: 'accepted',
      request_delivered: true,
      decline_reason: null,
      ...(credit !== null ? { peer_extends: credit } : {}),
      ...(available !== null ? { my_available_credit: available, available_at: this.core.nowIso() } : {}),
    });
    if (c.status === 'pending') store.update(c.id, { status: 'accepted', name: c.name ?? this.core.fallbackName(c) });
    ctx.db.afterCommit(() => ctx.events.publish(CONTACT_EVENTS.currencyAccepted, { pubkey_hash: c.pubkey_hash, currency: row.currency }));
  }

  #availableMap(contactId: number): Record<string, string | null> {
    const out: Record<string, string | null> = {};
    for (const row of this.core.store.currencies(contactId)) {
      if (row.status === 'accepted') out[row.currency] = row.my_available_credit === null ? null : formatMinor(row.my_available_credit);
    }
    return out;
  }

  /** When the next step of the cycle runs: every accepted contact gets its turn within STATUS_CYCLE_MS. */
  nextStepAt(now: number): number {
    const count = this.core.store.count('accepted');
    return now + Math.max(MIN_STEP_MS, Math.floor(STATUS_CYCLE_MS / Math.max(1, count)));
  }

  /** One step of the status cycle: the next accepted contact (by id, wrapping around). */
  async cycle(): Promise<void> {
    if (!this.core.ctx.settings.get<boolean>('contactStatusEnabled')) return;
    const contacts = this.core.store.acceptedWithKeys();
    if (contacts.length === 0) return;
    const next = contacts.find((c) => c.id > this.#cursor) ?? contacts[0]!;
    this.#cursor = next.id;
    await this.ping(next);
  }
}
