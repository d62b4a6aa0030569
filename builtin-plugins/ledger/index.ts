import { definePlugin, KERNEL_EVENTS } from '../../sdk/index.js';
import { formatMinor } from '../../sdk/money.js';
import type { ContactsService } from '../contacts/api.js';
import type { SystemService } from '../system/api.js';
import { balanceProvider, chainProvider } from './chain.js';
import { LedgerCore } from './core.js';
import { LedgerDeadLetters } from './dead-letters.js';
import { paymentMetrics } from './metrics.js';
import { MSG } from './protocol.js';
import { Receiver } from './receiver.js';
import { SendQueue } from './sender.js';
import { createLedgerService } from './service.js';
import { LedgerStore } from './store.js';
import { migrations } from './store/tables.js';

export default definePlugin({
  setup(ctx) {
    ctx.db.migrate(migrations);
    const contacts = ctx.services.use<ContactsService>('contacts');
    const store = new LedgerStore(ctx.db.handle);
    const core = new LedgerCore(ctx, store, contacts);
    core.onFinal(paymentMetrics(ctx));
    const deadLetters = new LedgerDeadLetters(core);
    const queue = new SendQueue(core, deadLetters);
    deadLetters.register(queue);
    const receiver = new Receiver(core, queue);

    ctx.peer.handle(MSG.send, receiver.handle);
    contacts.registerBalanceProvider(balanceProvider(core));
    contacts.registerChainProvider(chainProvider(core, queue));
    queue.registerJobs();
    ctx.events.subscribe(KERNEL_EVENTS.storageRecovered, () => queue.resumeAfterStorage());
    // Nothing of this process is in flight yet: every row left in `sending` is a crash's orphan.
    queue.recoverStuck(Number.MAX_SAFE_INTEGER, true);
    ctx.services.provide('ledger', createLedgerService(core, queue));

    // node-cli sync balances / POST /system/sync {type: balances}: totals recomputed from the settled rows.
    const system = ctx.services.use<SystemService>('system');
    system.registerSyncHandler('balances', () => {
      const changed = ctx.db.tx(() => store.balances.rebuild(core.now()));
      return {
        rebuilt: true,
        corrected: changed.map((c) => ({
          pubkey_hash: c.contactHash,
          currency: c.currency,
          before: { received: formatMinor(c.before.received), sent: formatMinor(c.before.sent) },
          after: { received: formatMinor(c.after.received), sent: formatMinor(c.after.sent) },
        })),
      };
    });
    system.registerMetrics('ledger', () => ({ transactions_by_status: store.listings.counts() }));
    // The chains' lines read ahead of the first pings, a chunk per turn, so none reads a long chain whole at once.
    let stopping = false;
    setImmediate(() =>
      store.chains.readLinesAhead(() => stopping).catch((err: unknown) => ctx.log.warn('chain lines not read ahead', { error: err instanceof Error ? err.message : String(err) })),
    );
    ctx.onStop(async () => {
      stopping = true;
      await queue.stop();
      deadLetters.stop();
    });
    queue.startWhenRunning();
  },
});
