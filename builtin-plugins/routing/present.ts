/**
 * JSON shapes of the P2P approval routes (Document 1, "Pending P2P transaction", "Route candidate"): amounts are
 * integer minor units (the one place of the API that does so), timestamps `YYYY-MM-DD HH:MM:SS` (UTC).
 */
import type { Minor } from '../../sdk/index.js';
import type { CandidateRow, PaymentRow } from './store.js';

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export const p2pTime = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Minor units as a JSON integer; beyond 2^53 (amounts above 90 million units) as an exact decimal string. */
export const minorUnits = (v: Minor): number | string => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());

export function pendingView(p: PaymentRow, candidates: readonly CandidateRow[]): Record<string, unknown> {
  const best = candidates[0];
  return {
    hash: p.hash,
    status: p.status,
    amount: minorUnits(p.amount),
    currency: p.currency,
    destination_address: p.destination,
    // The originator charges no fee of its own.
    my_fee_amount: 0,
    rp2p_amount: best ? minorUnits(best.amount) : null,
    fast: p.fast ? 1 : 0,
    candidate_count: candidates.length,
    created_at: p2pTime(p.createdAt),
    expires_at: p2pTime(p.expiresAt),
  };
}

export function candidateView(c: CandidateRow, p: PaymentRow): Record<string, unknown> {
  return {
    id: c.id,
    hash: c.hash,
    sender_address: c.senderAddress,
    amount: minorUnits(c.amount),
    currency: p.currency,
    fee_amount: minorUnits(c.amount - p.amount),
    hops: c.hops,
    sender_public_key: c.senderPublicKey,
    sender_signature: c.signature,
    time: c.timeMicros,
    created_at: p2pTime(c.createdAt),
  };
}
