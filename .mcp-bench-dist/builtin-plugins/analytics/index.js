import { definePlugin } from '../../sdk/index.js';
import { CONTACT_EVENTS } from '../contacts/api.js';
import { Analytics } from './core.js';
import { anonymousId } from './payload.js';
import { registerAnalyticsRoutes } from './routes.js';
import { analyticsSettings } from './settings.js';
import { AnalyticsStore } from './store.js';
import { Submitter } from './submit.js';
export default definePlugin({
    setup(ctx) {
        ctx.settings.declare(analyticsSettings);
        const store = new AnalyticsStore(ctx.db);
        const submitter = new Submitter({ outbound: ctx.kernel.outbound, settings: ctx.settings, version: ctx.kernel.node.version });
        const analytics = new Analytics({
            ledger: ctx.services.use('ledger'),
            contacts: ctx.services.use('contacts'),
            store,
            submitter,
            settings: ctx.settings,
            nodeSettings: ctx.kernel.settings,
            analyticsId: anonymousId(ctx.identity.storageKey('analytics-id'), ctx.identity.pubkeyHash),
            version: ctx.kernel.node.version,
            log: ctx.log,
            now: () => ctx.clock.now(),
        });
        ctx.services.use('system').registerAnalyticsReporter({ lastSubmitted: () => analytics.state().lastSubmitted });
        ctx.events.subscribe(CONTACT_EVENTS.currencyAccepted, (e) => {
            if (e.pubkey_hash && e.currency)
                store.recordHandshake(e.pubkey_hash, e.currency, ctx.clock.now());
        });
        ctx.events.subscribe(CONTACT_EVENTS.deleted, (e) => {
            if (e.pubkey_hash)
                store.forgetContact(e.pubkey_hash);
        });
        ctx.jobs.register({
            name: 'node-setup',
            nextRunAt: (now) => (analytics.setupDueAtStart() ? now : null),
            run: async () => void (await analytics.sendNodeSetup()),
        });
        let heartbeatInstalled = false;
        const installHeartbeat = () => {
            if (heartbeatInstalled)
                return;
            heartbeatInstalled = true;
            ctx.jobs.register({ name: 'heartbeat', nextRunAt: (now) => analytics.scheduleHeartbeat(now), run: async () => void (await analytics.runDaily()) });
        };
        if (analytics.enabled())
            installHeartbeat();
        ctx.settings.onChange('analyticsEnabled', (_key, value) => {
            if (value !== true)
                return analytics.cancel();
            installHeartbeat();
            ctx.jobs.kick('node-setup');
        });
        ctx.onStop(() => analytics.cancel());
        registerAnalyticsRoutes(ctx, analytics, submitter, () => heartbeatInstalled);
        if (!analytics.enabled() && !analytics.consentAsked() && !analytics.decidedByEnvironment()) {
            ctx.banner([
                'Analytics are off and nothing is sent. To help the project, send one anonymous usage summary a day over Tor',
                '(counts and totals only: no names, addresses, keys or single payments). See first: npx node-cli analytics preview',
                '  npx node-cli analytics enable     switch them on',
                '  npx node-cli analytics decline    keep them off (this notice then stops)',
            ]);
        }
    },
});
//# sourceMappingURL=index.js.map