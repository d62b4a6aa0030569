import { ApiError, definePlugin, formatMinor } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import { LEDGER_EVENTS, type LedgerService, type LedgerTx } from '../ledger/api.js';
import type { PaymentRequestsService } from '../payment-requests/api.js';

/** How far back a lookup by memo searches: a paid service matches recent payments, not the whole history. */
const MEMO_WINDOW_MS = 90 * 86_400_000;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function args(raw: unknown): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ApiError('validation_error', 400, 'The arguments must be an object');
  return raw as Record<string, unknown>;
}

function text(a: Record<string, unknown>, key: string, max = 255): string {
  const v = a[key];
  if (typeof v !== 'string' || v.trim() === '' || v.length > max) {
    throw new ApiError('validation_error', 400, `${key} must be a non-empty string of at most ${max} characters`, { field: key });
  }
  return v;
}

/**
 * A transaction as a third-party plugin sees it: what its own payer could tell it, nothing else (no addresses, no
 * signatures, no signed content, no routing marker).
 */
function publicTx(tx: LedgerTx): Record<string, unknown> {
  return {
    txid: tx.txid,
    direction: tx.type,
    status: tx.status,
    amount: formatMinor(tx.amount),
    currency: tx.currency,
    description: tx.description,
    counterparty_hash: tx.contactHash,
    created_at: iso(tx.createdAt),
    completed_at: iso(tx.completedAt),
  };
}

/**
 * The gateway of third-party plugins to the node's services, and the public events they may follow. Everything a
 * sandboxed plugin can reach of contacts, payments and requests is in this file: each operation is served only to
 * plugins whose manifest lists it in `permissions` (the operator sees the list before enabling one), and answers
 * with the few fields a paid service or a rail needs.
 */
export default definePlugin({
  setup(ctx) {
    const contacts = ctx.services.use<ContactsService>('contacts');
    const ledger = ctx.services.use<LedgerService>('ledger');
    const requests = ctx.services.use<PaymentRequestsService>('payment-requests');

    ctx.sandbox.gateway('contacts.lookup', (raw) => {
      const reference = text(args(raw), 'contact');
      let c;
      try {
        c = contacts.resolve(reference);
      } catch (err) {
        if (err instanceof ApiError && (err.code === 'contact_not_found' || err.code === 'ambiguous_contact')) return null;
        throw err;
      }
      return {
        name: c.name,
        pubkey_hash: c.pubkeyHash,
        status: c.status,
        currencies: c.currencies.filter((l) => l.status === 'accepted').map((l) => l.currency),
      };
    });

    ctx.sandbox.gateway('payment_requests.create', (raw, caller) => {
      const a = args(raw);
      const created = requests.create({ contact: text(a, 'contact'), amount: a.amount, currency: a.currency, description: a.description });
      ctx.log.info('payment request created by a plugin', { plugin: caller.plugin, request_id: created.requestId });
      return {
        request_id: created.requestId,
        contact_hash: created.contactHash,
        amount: formatMinor(created.amount),
        currency: created.currency,
        status: created.status,
      };
    });

    ctx.sandbox.gateway('transactions.lookup', (raw) => {
      const a = args(raw);
      if (a.txid !== undefined) {
        const tx = ledger.get(text(a, 'txid', 128));
        return tx ? publicTx(tx) : null;
      }
      const memo = text(a, 'memo');
      let txid: string | null = null;
      for (const row of ledger.exportTransactions({ type: 'received', from: ctx.clock.now() - MEMO_WINDOW_MS })) {
        if (row.description === memo) txid = row.txid;
      }
      const tx = txid ? ledger.get(txid) : null;
      return tx ? publicTx(tx) : null;
    });

    ctx.events.subscribe<{ txid: string; type: string; status: string }>(LEDGER_EVENTS.final, (e) => {
      if (e.type !== 'received' || e.status !== 'completed' || !ctx.sandbox.subscribed('payment.received')) return;
      const tx = ledger.get(e.txid);
      if (!tx) return;
      const { txid, amount, currency, description, counterparty_hash, completed_at } = publicTx(tx);
      ctx.sandbox.publish('payment.received', { txid, amount, currency, description, counterparty_hash, completed_at });
    });
  },
});
