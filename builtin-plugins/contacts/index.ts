import { definePlugin } from '../../sdk/index.js';
import type { SystemService } from '../system/api.js';
import { createService } from './service.js';
import { PRIVATE_ADDRESSES_SETTING } from './address-trust.js';
import { ContactsCore } from './core.js';
import { registerMessages } from './messages.js';
import { registerLineMetrics } from './metrics.js';
import { PingService } from './ping.js';
import { registerRoutes } from './routes.js';
import { ContactStore, migrations } from './store.js';

/**
 * Contacts: who this node trusts and on which terms. Routes under /api/v1/contacts, the contact.* peer
 * messages, the ping/pong status cycle, and the `contacts` service other plugins use (api.ts).
 */
export default definePlugin({
  setup(ctx) {
    ctx.settings.declare([
      {
        key: PRIVATE_ADDRESSES_SETTING,
        type: 'boolean',
        default: false,
        category: 'network',
        env: 'NODE_PEER_PRIVATE_ADDRESSES',
        security: true,
        description: 'Let peers name loopback, link-local and private-range addresses for themselves (private networks, tests)',
      },
    ]);
    ctx.db.migrate(migrations);
    const store = new ContactStore(ctx.db.handle, () => ctx.clock.now(), (fn) => ctx.db.afterCommit(fn));
    const core = new ContactsCore(ctx, store);
    const pinger = new PingService(core);
    registerMessages(core);
    pinger.register();
    registerRoutes(core, pinger);
    ctx.services.provide('contacts', createService(core));
    ctx.jobs.register({ name: 'status-cycle', processor: 'contacts', nextRunAt: (now) => pinger.nextStepAt(now), run: () => pinger.cycle() });
    // Our addresses follow the hostname setting: every contact hears of a change (a known address stays put otherwise).
    ctx.settings.onChange('hostname', () => {
      ctx.db.tx(() => {
        for (const c of store.reachableWithKeys()) core.enqueueAddresses(c);
      });
    });

    registerLineMetrics(ctx, store, core);
    const system = ctx.services.use<SystemService>('system');
    system.registerMetrics('contacts', () => ({
      accepted: store.count('accepted'),
      pending: store.count('pending'),
      blocked: store.count('blocked'),
    }));
    system.registerSyncHandler('contacts', async () => {
      // A sync of contacts is a status round: every accepted contact is pinged once, in turn.
      let online = 0;
      let offline = 0;
      for (const c of store.acceptedWithKeys()) {
        const r = await pinger.ping(c);
        if (r.online_status === 'online') online++;
        else offline++;
      }
      return { pinged: online + offline, online, offline };
    });
  },
});
