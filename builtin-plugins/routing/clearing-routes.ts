/**
 * Debt-cycle clearing (docs/api/p2p.md, "Clearing"): `POST /api/v1/clearing/run` clears the widest debt cycle through
 * this node now, `GET /api/v1/clearing` lists the clearings with what each cleared on this node's lines. A job runs one
 * clearing per allowed currency every hour while `autoCycleClearing` is on.
 */
import { ApiError, formatMinor, type PluginContext, type SettingDefinition } from '../../sdk/index.js';
import { checkCurrency } from '../../sdk/amounts.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import type { Payments } from './payments.js';
import { clearingLineResponse, clearingLinesResponse, clearingRunResponse, clearingsResponse } from './responses.js';
import type { RoutingStore } from './store.js';

export const clearingSettings: readonly SettingDefinition[] = [
  {
    key: 'autoCycleClearing',
    type: 'boolean',
    default: false,
    category: 'p2p',
    description: 'Take part in debt-cycle clearing: clear cycles through this node every hour, and relay the clearings of others',
  },
  {
    key: 'clearingMaxCycleLength',
    type: 'integer',
    default: 6,
    min: 3,
    max: 10,
    category: 'p2p',
    description: 'The longest debt cycle (in lines) a clearing this node starts may run around',
  },
];

const LIST_LIMIT = 100;
const EVERY_MS = 3_600_000;

export function registerClearing(ctx: PluginContext, store: RoutingStore, payments: Payments, ledger: LedgerService, contacts: ContactsService): void {
  const run = async (currency: string) => {
    const outcome = await payments.clear(currency);
    if (!outcome) return { status: 'nothing_to_clear', currency, amount: '0', hash: null, txid: null };
    return { status: outcome.status, currency, amount: formatMinor(store.payment(outcome.hash)!.amount), hash: outcome.hash, txid: outcome.txid };
  };

  ctx.routes.add<{ currency?: string }>({
    method: 'POST',
    path: '/api/v1/clearing/run',
    access: { scope: 'wallet:send' },
    response: clearingRunResponse,
    body: { type: 'object', additionalProperties: false, properties: { currency: { type: 'string' } } },
    errorCodes: { currency: 'invalid_currency' },
    handler: (req) => run(checkCurrency(ctx, req.body.currency ?? ctx.settings.get<string>('defaultCurrency'))),
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/clearing',
    access: { scope: 'wallet:read' },
    response: clearingsResponse,
    handler: () => {
      const clearings = store.clearings(LIST_LIMIT).map((p) => ({
        hash: p.hash,
        currency: p.currency,
        amount: formatMinor(p.amount),
        status: p.status,
        failure_reason: p.failureReason,
        created_at: new Date(p.createdAt).toISOString(),
        // What the clearing moved on each of this node's lines: its leg out and its leg back.
        lines: ledger.legsOf(p.hash).map((l) => ({ contact_hash: l.contactHash, direction: l.outgoing ? 'out' : 'in', amount: formatMinor(l.amount), status: l.status, txid: l.txid })),
      }));
      return { clearings, count: clearings.length };
    },
  });

  ctx.routes.add<{ currency: string; enabled: boolean; fee_percent?: string | null }>({
    method: 'PUT',
    path: '/api/v1/clearing/lines/:contact',
    access: { scope: 'contacts:write' },
    response: clearingLineResponse,
    body: {
      type: 'object',
      required: ['currency', 'enabled'],
      additionalProperties: false,
      properties: {
        currency: { type: 'string' },
        enabled: { type: 'boolean' },
        // The fee this node charges on a clearing it relays for this contact: 0-100, at most 8 decimals; none when absent.
        fee_percent: { type: ['string', 'null'], pattern: '^(100(\\.0{1,8})?|[0-9]{1,2}(\\.[0-9]{1,8})?)$' },
      },
    },
    errorCodes: { currency: 'invalid_currency', fee_percent: 'invalid_fee' },
    handler: (req) => {
      const contact = contacts.resolve(req.params.contact ?? '');
      const currency = checkCurrency(ctx, req.body.currency);
      if (!contact.pubkeyHash || !contacts.line(contact.pubkeyHash, currency)) {
        throw new ApiError('no_line', 400, `No accepted ${currency} line with ${contact.name ?? req.params.contact}`);
      }
      const feePercent = req.body.fee_percent ? String(Number(req.body.fee_percent)) : null;
      ctx.db.tx(() => store.setClearingLine(contact.pubkeyHash!, currency, { enabled: req.body.enabled, feePercent: feePercent === '0' ? null : feePercent }, ctx.clock.now()));
      return { contact_pubkey_hash: contact.pubkeyHash, currency, enabled: req.body.enabled, fee_percent: feePercent === '0' ? null : feePercent };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/clearing/lines',
    access: { scope: 'contacts:read' },
    response: clearingLinesResponse,
    handler: () => ({
      lines: store.clearingLines().map((l) => ({ contact_pubkey_hash: l.contactHash, currency: l.currency, enabled: l.enabled, fee_percent: l.feePercent })),
      default: 'enabled',
    }),
  });

  ctx.jobs.register({
    name: 'clearing',
    processor: 'p2p',
    everyMs: EVERY_MS,
    run: async () => {
      if (ctx.settings.get('autoCycleClearing') !== true) return;
      for (const currency of ctx.settings.get<string[]>('allowedCurrencies') ?? []) {
        try {
          const r = await run(currency);
          if (r.hash) ctx.log.info('debt cycle cleared', { currency, amount: r.amount, hash: r.hash, status: r.status });
        } catch (err) {
          ctx.log.warn('debt-cycle clearing failed', { currency, error: err instanceof Error ? err.message : String(err) });
        }
      }
    },
  });
}
