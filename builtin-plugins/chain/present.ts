import { formatMinor } from '../../sdk/money.js';
import type { ChainAudit } from '../ledger/api.js';

/**
 * One chain's audit as the REST API shows it. `checkpoint` is the archive checkpoint of the pair: `none` while no
 * row of it was archived, then `matched`, or `mismatch` (a finding) when the archive no longer digests to it.
 */
export function auditView(a: ChainAudit, contactName: string | null): Record<string, unknown> {
  const findings = a.gaps.length + a.forks.length + a.rows.length + (a.balance ? 1 : 0) + (a.checkpoint === 'mismatch' ? 1 : 0);
  return {
    contact_name: contactName,
    contact_pubkey_hash: a.contactHash,
    currency: a.currency,
    settled_count: a.settled,
    status: a.ok ? 'ok' : 'fail',
    findings,
    gaps: a.gaps.map((g) => ({ missing_txid: g.missing, broken_txid: g.broken, before_txid: g.before })),
    forks: a.forks,
    rows: a.rows.map((r) => ({ txid: r.txid, problem: r.problem, detail: r.detail })),
    balance: a.balance && {
      stored: { received: formatMinor(a.balance.stored.received), sent: formatMinor(a.balance.stored.sent) },
      computed: { received: formatMinor(a.balance.computed.received), sent: formatMinor(a.balance.computed.sent) },
    },
    checkpoint: a.checkpoint,
  };
}
