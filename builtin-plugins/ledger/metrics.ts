import type { PluginContext } from '../../sdk/index.js';
import { formatMinor } from '../../sdk/money.js';
import type { LedgerTx } from './api.js';

/** Direct payments, legs of routed payments this node sends or receives, and legs it relays. */
function kindOf(tx: LedgerTx): string {
  if (tx.type === 'relay') return 'relay';
  return tx.condition ? 'routed' : 'direct';
}

/**
 * Payments that reached a final status, counted once their transaction committed, and the amounts of the completed
 * ones per currency (floating point: a dashboard's figure; the ledger's exact totals are in the REST API).
 */
export function paymentMetrics(ctx: PluginContext): (tx: LedgerTx) => void {
  const payments = ctx.metrics.counter({
    name: 'payments_total',
    help: 'Payments by direction (in, out), kind (direct, routed, relay) and final status',
    labels: ['direction', 'kind', 'status'],
  });
  const amounts = ctx.metrics.counter({
    name: 'payment_amount_total',
    help: 'Sum of completed payment amounts by direction, kind and currency (in currency units)',
    labels: ['direction', 'kind', 'currency'],
    maxSeries: 300,
  });
  return (tx) => {
    const direction = tx.outgoing ? 'out' : 'in';
    const kind = kindOf(tx);
    ctx.db.afterCommit(() => {
      payments.inc({ direction, kind, status: tx.status });
      if (tx.status === 'completed') amounts.inc({ direction, kind, currency: tx.currency }, Number(formatMinor(tx.amount)));
    });
  };
}
