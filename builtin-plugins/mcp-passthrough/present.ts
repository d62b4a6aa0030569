/** Wire shapes of usage rows and top-ups: amounts as trimmed decimal strings, times as ISO 8601. */
import { formatMinor } from '../../sdk/index.js';
import { iso } from './keys.js';
import type { TopupRow, UsageDay, UsageRow } from './store.js';

/** What a customer sees of its own calls: everything but the operator's cost. */
export function customerUsageView(u: UsageRow): Record<string, unknown> {
  return {
    usage_id: u.id,
    /** The JSON-RPC id of the call, or the mark a reselling node gave it. */
    call_id: u.callId,
    tool: u.tool,
    status: u.status,
    model: u.model,
    provider: u.providerId,
    route: u.route,
    hops: u.hops,
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    transfer_bytes: u.transferBytes,
    estimated: u.estimated,
    charge: formatMinor(u.charge),
    from_balance: formatMinor(u.fromBalance),
    from_credit: formatMinor(u.fromCredit),
    currency: u.currency,
    error: u.error,
    started_at: iso(u.startedAt),
    finished_at: iso(u.finishedAt),
  };
}

export function operatorUsageView(u: UsageRow): Record<string, unknown> {
  return {
    ...customerUsageView(u),
    key_id: u.keyId,
    seller_hash: u.sellerHash,
    cost: formatMinor(u.cost),
    cost_currency: u.costCurrency,
  };
}

export function topupView(t: TopupRow): Record<string, unknown> {
  return {
    topup_id: t.id,
    txid: t.txid,
    key_id: t.keyId,
    contact_hash: t.contactHash,
    amount: formatMinor(t.amount),
    currency: t.currency,
    to_debt: formatMinor(t.toDebt),
    to_balance: formatMinor(t.toBalance),
    status: t.status,
    reason: t.reason,
    at: iso(t.at),
  };
}

/** One day, key, model and currency of `usage-summary`. */
export function usageDayView(d: UsageDay): Record<string, unknown> {
  return {
    day: d.day,
    key_id: d.keyId,
    model: d.model,
    currency: d.currency,
    calls: d.calls,
    input_tokens: d.inputTokens,
    output_tokens: d.outputTokens,
    charge: formatMinor(d.charge),
  };
}
