/**
 * Learned offers as candidates of a call (inference.ts `SellerSource`): one per seller and model, at this node's
 * resale rates (the seller's rates plus the operator's resale markup), rejected when remote routing is off, the
 * offer lies beyond the operator's horizon, the seller is no longer an accepted contact in the settlement currency,
 * or it cannot be called. A call is bought through resale.ts, its charge paid after settlement.
 */
import type { Minor } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import { MAX_OUTPUT_CAP, sameCurrency, type Settings } from '../config.js';
import type { SellerCandidate, SellerSource } from '../inference.js';
import type { CallOptions } from '../upstream/call.js';
import type { ChatMessage, Generation } from '../upstream/protocol.js';
import { offerRates, resaleRates, type Offers } from './offers.js';
import type { Resale, ResoldOutcome } from './resale.js';
import type { FederationStore, UnsettledCall } from './store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export class Sellers implements SellerSource {
  constructor(
    private readonly offers: Offers,
    private readonly resale: Resale,
    private readonly store: FederationStore,
    private readonly contacts: ContactsService,
    private readonly now: () => number,
  ) {}

  candidates(model: string | null, settings: Settings): SellerCandidate[] {
    const bySeller = new Map<string, SellerCandidate>();
    for (const offer of this.offers.fresh()) {
      if (model !== null && offer.model !== model) continue;
      const rates = resaleRates(offerRates(offer), settings.resaleMarkupPct);
      const slot = `${offer.sellerHash}\n${offer.model}`;
      const seen = bySeller.get(slot);
      // The seller routes the call itself: one candidate per seller, its cheapest (then nearest) offer of the model.
      if (seen && seen.rates.inPer1m + seen.rates.outPer1m <= rates.inPer1m + rates.outPer1m) continue;
      const rejections: string[] = [];
      if (!settings.remoteRouting) rejections.push('remote_routing_off');
      if (offer.hops > settings.maxHops) rejections.push('beyond_operator_hops');
      if (!sameCurrency(offer.currency, settings.currency)) rejections.push('currency_mismatch');
      if (!this.contacts.isAccepted(offer.sellerHash, settings.currency)) rejections.push('seller_not_accepted');
      const unreachable = this.resale.unreachable(offer.sellerHash);
      if (unreachable) rejections.push(unreachable);
      bySeller.set(slot, {
        kind: 'seller',
        offer,
        rates,
        allowance: Math.min(offer.maxOutputTokens ?? settings.maxOutputTokens, settings.maxOutputTokens, MAX_OUTPUT_CAP),
        rejections,
        hops: offer.hops,
      });
    }
    return [...bySeller.values()];
  }

  call(c: SellerCandidate, call: { messages: readonly ChatMessage[]; maxOutputTokens: number; generation: Generation }, options: CallOptions): Promise<ResoldOutcome> {
    return this.resale.call(c.offer, { model: c.offer.model, messages: call.messages, maxOutputTokens: call.maxOutputTokens, generation: call.generation, hopsLeft: c.hops - 1 }, options);
  }

  owe(c: SellerCandidate, outcome: ResoldOutcome): void {
    const owed = owedOf(c, outcome);
    if (owed) this.resale.owe(owed);
  }

  pay(c: SellerCandidate, outcome: ResoldOutcome): void {
    const owed = owedOf(c, outcome);
    // No charge came with the answer (or no answer): the seller's own record of the call says what it charged, later.
    if (owed) this.resale.payOwed(owed, outcome.sellerCharge);
  }

  spentToday(): Minor {
    const now = this.now();
    return this.store.sellerSpendSince(now - (now % DAY_MS));
  }
}

/** What a call that reached a seller leaves owed to it (nothing when no key there was used). */
function owedOf(c: SellerCandidate, outcome: ResoldOutcome): Omit<UnsettledCall, 'attempts' | 'nextAt'> | null {
  if (outcome.sellerKeyId === null || outcome.sellerCallId === null) return null;
  return { callMark: outcome.sellerCallId, sellerHash: c.offer.sellerHash, keyId: outcome.sellerKeyId, currency: c.offer.currency };
}
