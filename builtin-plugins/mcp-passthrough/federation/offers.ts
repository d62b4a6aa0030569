/**
 * Offers learned from contacts, and this node's own directory.
 *
 * Learning: the node asks each accepted contact holding a line in its settlement currency for its directory
 * (`POST /p/mcp-passthrough/directory` with a contact proof) every ten minutes, whenever a contact is accepted and
 * when the operator's configuration makes the offers matter (the `refresh-offers` job), and keeps what it may buy: entries in its settlement currency, one hop further than the
 * contact said, within the three-hop horizon, never its own offers coming back. A contact's offers replace what was
 * learned from it before; offers not refreshed for 30 minutes are stale and ignored, then removed.
 *
 * Serving: own enabled models at hops 0 to anyone admitted; to a verified caller, with remote routing on, also the
 * learned offers this node would resell (within its own horizon, one hop short of the three-hop limit so the receiver
 * stays within it, never those it buys from the caller itself), at this node's resale rates (the seller's plus the
 * operator's resale markup): the price the caller would pay here. One row per origin and model: the cheapest.
 */
import { formatMinor, parseDecimal, type IdentityApi, type Logger, type Minor } from '../../../sdk/index.js';
import type { ContactInfo, ContactsService } from '../../contacts/api.js';
import { MAX_HOPS, MAX_OUTPUT_CAP, sameCurrency, type OperatorConfig } from '../config.js';
import { customerRates, marked, rate, ratesView, type Rates } from '../pricing.js';
import { makeProof } from './proofs.js';
import type { ContactReach } from './reach.js';
import type { FederationStore, OfferRow } from './store.js';

export const OFFER_REFRESH_MS = 10 * 60_000;
export const OFFER_TTL_MS = 3 * OFFER_REFRESH_MS;
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Offers kept from one contact's directory at most (a bigger answer is cut, nearest first). */
const MAX_OFFERS_PER_SELLER = 1000;

export interface DirectoryModel {
  name: string;
  in_price_per_1m: string;
  out_price_per_1m: string;
  xfer_price_per_gb: string;
  max_output_tokens: number;
}

export interface DirectoryEntry {
  tor_address: string | null;
  pubkey_hash: string;
  models: DirectoryModel[];
  currency: string;
  hops: number;
}

/** A seller's rates to this node as an offer row holds them. */
export const offerRates = (o: Pick<OfferRow, 'inPer1m' | 'outPer1m' | 'xferPerGb'>): Rates => ({ inPer1m: rate(o.inPer1m), outPer1m: rate(o.outPer1m), xferPerGb: rate(o.xferPerGb) });

export const resaleRates = (cost: Rates, markupPct: Minor): Rates => ({
  inPer1m: marked(cost.inPer1m, markupPct),
  outPer1m: marked(cost.outPer1m, markupPct),
  xferPerGb: marked(cost.xferPerGb, markupPct),
});

const canonicalRate = (v: unknown): string | null => {
  const r = parseDecimal(v ?? '0');
  return r.ok ? formatMinor(r.value) : null;
};

export class Offers {
  constructor(
    private readonly store: FederationStore,
    private readonly tx: <T>(fn: () => T) => T,
    private readonly contacts: ContactsService,
    private readonly identity: Pick<IdentityApi, 'pubkeyHash' | 'assert'>,
    private readonly reach: ContactReach,
    private readonly config: OperatorConfig,
    private readonly ownTor: () => string | null,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Fresh offers, nearest first. */
  fresh(): OfferRow[] {
    return this.store.offers(this.now() - OFFER_TTL_MS);
  }

  /** Asks every accepted contact in the settlement currency for its directory; forgets what others said. */
  async refreshAll(): Promise<{ sellers: number; offers: number; failed: number }> {
    const currency = this.config.settings().currency;
    const sellers = this.contacts.accepted(currency).filter((c): c is ContactInfo & { pubkeyHash: string } => !!c.pubkeyHash);
    const results = await Promise.allSettled(sellers.map((c) => this.refresh(c)));
    const known = new Set(sellers.map((c) => c.pubkeyHash));
    this.tx(() => {
      for (const o of this.store.offers(0)) if (!known.has(o.sellerHash)) this.store.replaceOffers(o.sellerHash, []);
      this.store.dropStaleOffers(this.now() - OFFER_TTL_MS);
    });
    const failed = results.filter((r) => r.status === 'rejected').length;
    return { sellers: sellers.length, offers: results.reduce((n, r) => n + (r.status === 'fulfilled' ? r.value : 0), 0), failed };
  }

  /** Fetches one contact's directory and keeps its offers; the number kept. Throws when the contact cannot be asked. */
  async refresh(contact: ContactInfo & { pubkeyHash: string }): Promise<number> {
    let answer: unknown;
    try {
      const { res } = await this.reach.post(contact.pubkeyHash, 'directory', (r) => ({ assert: makeProof(this.identity, r.audience, this.now()) }), MAX_ANSWER_BYTES);
      if (res.status !== 200) throw new Error(`the directory answered HTTP ${res.status}`);
      answer = JSON.parse(res.body);
    } catch (err) {
      this.log.warn('a contact directory could not be read', { pubkey_hash: contact.pubkeyHash, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
    const rows = this.#parse(contact.pubkeyHash, answer);
    this.tx(() => this.store.replaceOffers(contact.pubkeyHash, rows));
    return rows.length;
  }

  #parse(sellerHash: string, answer: unknown): OfferRow[] {
    const a = answer as { v?: unknown; entries?: unknown } | null;
    if (!a || a.v !== 1 || !Array.isArray(a.entries)) throw new Error('the directory answer is not {v: 1, entries}');
    const currency = this.config.settings().currency;
    const at = this.now();
    const rows: OfferRow[] = [];
    for (const e of a.entries as Record<string, unknown>[]) {
      if (typeof e !== 'object' || e === null || !Array.isArray(e.models)) continue;
      const hops = typeof e.hops === 'number' && Number.isInteger(e.hops) && e.hops >= 0 ? e.hops + 1 : null;
      if (hops === null || hops > MAX_HOPS) continue;
      if (typeof e.currency !== 'string' || !sameCurrency(e.currency, currency)) continue;
      const origin = typeof e.pubkey_hash === 'string' && /^[0-9a-f]{64}$/.test(e.pubkey_hash) ? e.pubkey_hash : typeof e.tor_address === 'string' ? e.tor_address : null;
      // Our own offers coming back through a contact are never bought from it.
      if (!origin || origin === this.identity.pubkeyHash || (e.tor_address && e.tor_address === this.ownTor())) continue;
      for (const m of e.models as Record<string, unknown>[]) {
        if (typeof m !== 'object' || m === null || typeof m.name !== 'string' || !m.name || m.name.length > 200) continue;
        const [inPer1m, outPer1m, xferPerGb] = [canonicalRate(m.in_price_per_1m), canonicalRate(m.out_price_per_1m), canonicalRate(m.xfer_price_per_gb)];
        if (inPer1m === null || outPer1m === null || xferPerGb === null) continue;
        const max = typeof m.max_output_tokens === 'number' && Number.isInteger(m.max_output_tokens) && m.max_output_tokens > 0 ? Math.min(m.max_output_tokens, MAX_OUTPUT_CAP) : null;
        rows.push({
          sellerHash,
          origin,
          torAddress: typeof e.tor_address === 'string' ? e.tor_address : null,
          model: m.name,
          inPer1m,
          outPer1m,
          xferPerGb,
          maxOutputTokens: max,
          currency,
          hops,
          fetchedAt: at,
        });
      }
    }
    return rows.sort((x, y) => x.hops - y.hops).slice(0, MAX_OFFERS_PER_SELLER);
  }

  /** This node's directory for a caller: own models; learned ones too when the caller is a verified contact. */
  directory(caller: { verified: boolean; pubkeyHash: string | null }): DirectoryEntry[] {
    const settings = this.config.settings();
    const entries: DirectoryEntry[] = [];
    const own = this.config
      .models()
      .filter((m) => m.enabled)
      .map((m) => ({ name: m.id, ...ratesView(customerRates(m)), max_output_tokens: Math.min(m.maxOutputTokens ?? settings.maxOutputTokens, MAX_OUTPUT_CAP) }));
    if (own.length) entries.push({ tor_address: this.ownTor(), pubkey_hash: this.identity.pubkeyHash, models: dedupe(own), currency: settings.currency, hops: 0 });
    if (!caller.verified || !settings.remoteRouting) return entries;
    const horizon = Math.min(settings.maxHops, MAX_HOPS - 1);
    const best = new Map<string, { row: OfferRow; rates: Rates }>();
    for (const o of this.fresh()) {
      if (o.hops > horizon || o.sellerHash === caller.pubkeyHash || o.origin === caller.pubkeyHash) continue;
      if (!this.contacts.isAccepted(o.sellerHash, settings.currency)) continue;
      const rates = resaleRates(offerRates(o), settings.resaleMarkupPct);
      const k = `${o.origin}\n${o.model}`;
      const seen = best.get(k);
      if (!seen || rates.inPer1m + rates.outPer1m < seen.rates.inPer1m + seen.rates.outPer1m || (rates.inPer1m + rates.outPer1m === seen.rates.inPer1m + seen.rates.outPer1m && o.hops < seen.row.hops)) {
        best.set(k, { row: o, rates });
      }
    }
    const byOrigin = new Map<string, DirectoryEntry>();
    for (const { row, rates } of best.values()) {
      // One entry per origin and distance: every model of an entry is that many hops away.
      const k = `${row.origin}\n${row.hops}`;
      let e = byOrigin.get(k);
      if (!e) {
        e = { tor_address: row.torAddress, pubkey_hash: row.origin, models: [], currency: settings.currency, hops: row.hops };
        byOrigin.set(k, e);
        entries.push(e);
      }
      e.models.push({ name: row.model, ...ratesView(rates), max_output_tokens: Math.min(row.maxOutputTokens ?? settings.maxOutputTokens, settings.maxOutputTokens, MAX_OUTPUT_CAP) });
    }
    return entries;
  }
}

/** The same model id on two providers is one offer of this node (its first, cheapest-first is not promised). */
function dedupe(models: DirectoryModel[]): DirectoryModel[] {
  const seen = new Set<string>();
  return models.filter((m) => !seen.has(m.name) && seen.add(m.name));
}
