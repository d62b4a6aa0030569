/** The federation's part of the operator's `status`: what was learned, from whom. */
import type { OfferRow } from './store.js';

export function federationStatus(offers: readonly OfferRow[], owedCalls: number): Record<string, unknown> {
  return {
    offer_count: offers.length,
    // Resold calls whose seller's charge is not paid yet (settle-resales pays them).
    owed_calls: owedCalls,
    sellers: [...new Set(offers.map((o) => o.sellerHash))],
    offers: offers.map((o) => ({
      seller: o.sellerHash,
      origin: o.origin,
      tor_address: o.torAddress,
      model: o.model,
      hops: o.hops,
      currency: o.currency,
      in_price_per_1m: o.inPer1m,
      out_price_per_1m: o.outPer1m,
      xfer_price_per_gb: o.xferPerGb,
      fetched_at: new Date(o.fetchedAt).toISOString(),
    })),
  };
}
