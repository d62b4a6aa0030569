import { ApiError, definePlugin } from '../../sdk/index.js';
import { CONTACT_EVENTS, type ContactsService } from '../contacts/api.js';
import { LEDGER_EVENTS, type LedgerService } from '../ledger/api.js';
import type { SystemService } from '../system/api.js';
import { auditView } from './present.js';
import { verifyResponse } from './schemas.js';
import { ChainSync, MSG_ROWS } from './sync.js';
import { DropStore, migrations } from './drops-store.js';
import { MSG_DROP, TxDrops } from './drops.js';
import { registerDropRoutes } from './drops-routes.js';

/**
 * Chain integrity (issue 15): `GET /api/v1/chain/verify`, the audit behind `node-cli verify-chain` (every settled
 * chain checked end to end by the ledger: links, signed content, both signatures, stored totals), and transaction
 * sync (`POST /api/v1/system/sync {type: transactions}`, `node-cli sync transactions`): the rows a node lacks, pulled
 * from its contacts and checked one by one; tx drops (`/api/v1/chaindrop`) for gaps neither side can fill. Archival is
 * to come.
 */
export default definePlugin({
  setup(ctx) {
    const ledger = ctx.services.use<LedgerService>('ledger');
    const contacts = ctx.services.use<ContactsService>('contacts');
    ctx.db.migrate(migrations);
    const dropStore = new DropStore(ctx.db, () => ctx.clock.now());
    const drops = new TxDrops(ctx, ledger, contacts, dropStore);
    const sync = new ChainSync(ctx, ledger, contacts, (hash, currency) => void drops.repairAfterSync(hash, currency));
    ledger.blockChain(drops.block);
    ctx.peer.handle(MSG_DROP, drops.handle);
    registerDropRoutes(ctx, drops, dropStore, contacts);
    ctx.peer.handle(MSG_ROWS, sync.handleRows);
    contacts.registerHistoryProver(sync.prove);
    ctx.events.subscribe(CONTACT_EVENTS.chainMismatch, sync.onMismatch);
    ctx.events.subscribe(LEDGER_EVENTS.chainMismatch, sync.onMismatch);
    ctx.onStop(ledger.onFinal(sync.onPayment));
    ctx.services.use<SystemService>('system').registerSyncHandler('transactions', () => sync.syncAll());

    ctx.routes.add<unknown, { contact_pubkey_hash?: string; currency?: string }>({
      method: 'GET',
      path: '/api/v1/chain/verify',
      response: verifyResponse,
      access: { scope: 'wallet:read' },
      query: {
        type: 'object',
        properties: { contact_pubkey_hash: { type: 'string' }, currency: { type: 'string' } },
        additionalProperties: false,
      },
      handler: async (req) => {
        const hash = req.query.contact_pubkey_hash?.trim().toLowerCase();
        if (hash !== undefined && !/^[0-9a-f]{64}$/.test(hash)) {
          throw new ApiError('invalid_hash', 400, 'contact_pubkey_hash must be a 64-character hex string', { field: 'contact_pubkey_hash' });
        }
        const audits = await ledger.auditChains({ ...(hash ? { contactHash: hash } : {}), ...(req.query.currency ? { currency: req.query.currency } : {}) });
        const chains = audits.map((a) => auditView(a, contacts.get(a.contactHash)?.name ?? null));
        const findings = chains.reduce((n, c) => n + (c.findings as number), 0);
        return { ok: findings === 0, findings, count: chains.length, chains };
      },
    });
  },
});
