/**
 * The routing plugin: pays nodes that are not direct contacts through chains of credit lines (docs/protocol.md,
 * "Routing"). It registers itself as the ledger's router, so the wallet's send (and refunds, payment requests) reach
 * it only when no direct line exists.
 */
import { definePlugin } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import type { SystemService } from '../system/api.js';
import { OriginBudgets } from './budgets.js';
import { CapacityProbe } from './capacity.js';
import { clearingSettings, registerClearing } from './clearing-routes.js';
import { Discovery } from './discovery.js';
import { Legs } from './legs.js';
import { Payments } from './payments.js';
import { MSG } from './protocol.js';
import { registerMaxSendableRoute } from './max-sendable-route.js';
import { registerRoutes } from './routes.js';
import { SplitReceiver } from './split-receive.js';
import { SplitSender } from './split-send.js';
import { migrations, RoutingStore } from './store.js';

/** The p2p processor's sweep: search deadlines, expiries, and leg messages whose retry is due. */
const SWEEP_MS = 1000;

export default definePlugin({
  setup(ctx) {
    ctx.db.migrate(migrations);
    ctx.settings.declare(clearingSettings);
    const contacts = ctx.services.use<ContactsService>('contacts');
    const ledger = ctx.services.use<LedgerService>('ledger');
    const store = new RoutingStore(ctx.db.handle);
    // The destination's describe hook reaches the payments through this closure (they are built after it).
    const splits: SplitReceiver = new SplitReceiver(ctx, store, ledger, (hash, txid): boolean => payments.describe(hash, txid));
    const discovery = new Discovery(
      ctx,
      contacts,
      ledger,
      (contact, currency) => store.clearingTerms(contact, currency),
      (group, hash) => splits.preimageFor(group, hash),
    );
    const budgets = new OriginBudgets((key) => ctx.settings.get(key), () => ctx.clock.now());
    const probe = new CapacityProbe(ctx, contacts, discovery, budgets);
    const payments = new Payments(ctx, store, ledger, contacts, discovery, probe, splits, budgets);
    const legs = new Legs(
      ctx,
      store,
      ledger,
      contacts,
      discovery,
      {
        fulfilled: () => undefined,
        rejected: (hash, _txid, reason) => payments.legRejected(hash, reason),
        describe: (hash, txid) => payments.describe(hash, txid),
      },
      splits,
    );
    payments.attach(legs);
    splits.attach(legs);
    const router = new SplitSender(store, ledger, payments, probe).router();

    ctx.peer.handle(MSG.request, discovery.handleRequest);
    ctx.peer.handle(MSG.response, discovery.handleResponse);
    ctx.peer.handle(MSG.cancel, discovery.handleCancel);
    ctx.peer.handle(MSG.prepare, legs.handlePrepare);
    ctx.peer.handle(MSG.fulfil, legs.handleFulfil);
    ctx.peer.handle(MSG.reject, legs.handleReject);
    ctx.peer.handle(MSG.note, payments.handleNote);
    ctx.peer.handle(MSG.splitAbort, splits.handleAbort);
    // Route requests and answers are worth nothing after p2pExpiration: their dead letters can only be abandoned.
    ctx.peer.outcomes(MSG.request, { label: 'p2p', retryable: false });
    ctx.peer.outcomes(MSG.response, { label: 'rp2p', retryable: false });
    ctx.peer.outcomes(MSG.note, { label: 'p2p', retryable: false });

    const offFinal = ledger.onFinal(payments.onFinal);
    const offRouter = ledger.registerRouter(router);
    registerRoutes(ctx, store, payments);
    registerMaxSendableRoute(ctx, contacts, probe);
    registerClearing(ctx, store, payments, ledger, contacts);
    ctx.services.use<SystemService>('system').registerMetrics('routing', () => ({ messages_sent: { ...discovery.sent }, ...store.counts() }));

    let started = false;
    ctx.jobs.register({
      name: 'sweep',
      processor: 'p2p',
      everyMs: SWEEP_MS,
      run: () => {
        const now = ctx.clock.now();
        discovery.sweep(now);
        payments.sweep(now);
        splits.sweep(now);
        // Legs owed a message when the node stopped get it at once: their peers wait for it, whatever the backoff.
        legs.resend(started ? now : Number.POSITIVE_INFINITY);
        started = true;
      },
    });

    ctx.jobs.register({
      name: 'retention',
      processor: 'cleanup',
      everyMs: 3_600_000,
      run: () => {
        const before = (setting: string, days: number): number => ctx.clock.now() - Number(ctx.settings.get(setting) ?? days) * 86_400_000;
        const pruned = ctx.db.tx(() => store.prune(before('cleanupHeldTxRetentionDays', 7), before('cleanupRp2pRetentionDays', 30)));
        if (pruned.candidates || pruned.notes) ctx.log.info('old route candidates and notes removed', pruned);
      },
    });
    // A shorter retention applies at once, not at the next hourly run.
    for (const key of ['cleanupHeldTxRetentionDays', 'cleanupRp2pRetentionDays']) ctx.settings.onChange(key, () => ctx.jobs.kick('retention'));

    ctx.onStop(() => {
      offFinal();
      offRouter();
      legs.stop();
      discovery.stop();
    });
  },
});
