/**
 * Where the webhook events come from: the events other plugins publish on the bus (after their commits), turned
 * into webhook events with the fields a receiver needs. A failure here is logged and never reaches the publisher.
 */
import { KERNEL_EVENTS, formatMinor, type DeadLetterItem, type PluginContext } from '../../sdk/index.js';
import { CONTACT_EVENTS, type ContactsService } from '../contacts/api.js';
import { LEDGER_EVENTS, type LedgerService, type LedgerTx } from '../ledger/api.js';
import { PAYMENT_REQUEST_EVENTS } from '../payment-requests/api.js';
import { ROUTING_EVENTS } from '../routing/api.js';
import type { WebhookEvent } from './api.js';
import { DLQ_LABEL, type WebhooksCore } from './core.js';
import { LINE_THRESHOLD_SETTING } from './settings.js';

const UNSUCCESSFUL = new Set(['failed', 'rejected', 'cancelled']);

function paymentEvent(tx: Pick<LedgerTx, 'type' | 'status'>): WebhookEvent | null {
  if (tx.type === 'received' && tx.status === 'completed') return 'payment.received';
  if (tx.type === 'sent' && tx.status === 'completed') return 'payment.sent';
  if (tx.type === 'sent' && UNSUCCESSFUL.has(tx.status)) return 'payment.failed';
  return null;
}

function paymentData(tx: LedgerTx): Record<string, unknown> {
  return {
    txid: tx.txid,
    type: tx.type,
    tx_type: tx.txType,
    status: tx.status,
    amount: formatMinor(tx.amount),
    currency: tx.currency,
    counterparty_hash: tx.contactHash,
    description: tx.description,
    failure_reason: tx.failureReason,
    completed_at: tx.completedAt === null ? null : new Date(tx.completedAt).toISOString(),
  };
}

export function subscribeSources(ctx: PluginContext, core: WebhooksCore, ledger: LedgerService, contacts: ContactsService): void {
  const on = <P>(busEvent: string, handler: (payload: P) => void): void => {
    ctx.events.subscribe<P>(busEvent, (payload) => {
      try {
        handler(payload);
      } catch (err) {
        ctx.log.error('webhook event not recorded', { bus_event: busEvent, error: err instanceof Error ? err.message : String(err) });
      }
    });
  };

  on<Pick<LedgerTx, 'txid' | 'type' | 'status'>>(LEDGER_EVENTS.final, (e) => {
    // Every payment ends here, on both sides: the row is read only when a webhook wants what it would tell.
    const event = paymentEvent(e);
    const wanted = event !== null && core.wants(event);
    const threshold = e.status === 'completed' && core.wants('line.threshold');
    if (!wanted && !threshold) return;
    const tx = ledger.get(e.txid);
    if (!tx) return;
    if (wanted) core.emit(event, paymentData(tx));
    if (threshold && !tx.outgoing) lineThreshold(tx);
  });

  /** The credit the contact uses on this node's line crossed the threshold with this incoming payment. */
  const lineThreshold = (tx: LedgerTx): void => {
    const limit = contacts.line(tx.contactHash, tx.currency)?.creditLimit ?? null;
    if (limit === null || limit <= 0n) return;
    const used = limit - ledger.creditAvailable(tx.contactHash, tx.currency);
    const percent = BigInt(ctx.settings.get<number>(LINE_THRESHOLD_SETTING));
    const reached = (u: bigint): boolean => u * 100n >= limit * percent;
    if (!reached(used) || reached(used - tx.amount)) return;
    core.emit('line.threshold', {
      counterparty_hash: tx.contactHash,
      currency: tx.currency,
      credit_limit: formatMinor(limit),
      used: formatMinor(used),
      threshold_percent: Number(percent),
      txid: tx.txid,
    });
  };

  on<{ request_id: string; direction: string; status: string }>(PAYMENT_REQUEST_EVENTS.changed, (e) => {
    if (e.direction === 'incoming' && e.status === 'pending') core.emit('payment_request.received', { request_id: e.request_id });
  });
  on<{ hash: string }>(ROUTING_EVENTS.awaitingApproval, (e) => core.emit('route.awaiting_approval', { hash: e.hash }));
  on<{ hash: string; currency: string; amount: string }>(ROUTING_EVENTS.clearingDone, (e) => core.emit('clearing.done', { hash: e.hash, currency: e.currency, amount: e.amount }));
  on<{ pubkey_hash: string; currency: string }>(CONTACT_EVENTS.requestReceived, (e) => core.emit('contact.request', { pubkey_hash: e.pubkey_hash, currency: e.currency }));

  // The queue's change event carries only a count: the new items are those above the highest id seen. The webhooks'
  // own dead letters are left out, or an unreachable receiver would feed itself a dead letter per dead letter.
  let seen = ctx.kernel.dlq.list(['pending', 'retrying', 'resolved', 'abandoned'])[0]?.id ?? 0;
  on(KERNEL_EVENTS.dlqChanged, () => {
    const added = ctx.kernel.dlq.list(['pending']).filter((i) => i.id > seen);
    if (added.length === 0) return;
    seen = Math.max(seen, ...added.map((i) => i.id));
    for (const item of added.reverse()) if (!isOwn(item)) core.emit('dead_letter.added', deadLetterData(item));
  });
}

const isOwn = (item: DeadLetterItem): boolean => item.message_type === DLQ_LABEL;

function deadLetterData(item: DeadLetterItem): Record<string, unknown> {
  const { id, message_type, recipient_address, failure_reason, retry_count, added_at } = item;
  return { id, message_type, recipient_address, failure_reason, retry_count, added_at };
}
