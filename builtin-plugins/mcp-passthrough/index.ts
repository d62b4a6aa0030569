import { definePlugin } from '../../sdk/index.js';
import { CONTACT_EVENTS, type ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import { MCP_SERVICE, type McpPassthroughService } from './api.js';
import { Billing, topupMemo } from './billing.js';
import { OperatorConfig } from './config.js';
import { CustomerApi } from './customer.js';
import { Inference, REQUEST_TIMEOUT_MS } from './inference.js';
import { OFFER_REFRESH_MS, Offers } from './federation/offers.js';
import { federationStatus } from './federation/present.js';
import { ProofVerifier } from './federation/proofs.js';
import { ContactReach } from './federation/reach.js';
import { Resale } from './federation/resale.js';
import { registerFederationRoutes } from './federation/routes.js';
import { Sellers } from './federation/sellers.js';
import { FederationStore, federationMigrations } from './federation/store.js';
import { Health } from './health.js';
import { Budgets } from './budget.js';
import { Keys } from './keys.js';
import { CallGate, effectiveLimits } from './limits.js';
import { OpenAiDoor } from './openai/door.js';
import { registerPublicRoutes } from './public-routes.js';
import { registerOperatorRoutes } from './routes.js';
import { TokenCipher } from './secrets.js';
import { McpStore, migrations } from './store.js';
import { UpstreamAgents } from './upstream/call.js';
import { inferenceMetrics } from './metrics.js';
import { coreProviderPresets, PresetRegistry } from './upstream/presets.js';

/** Bootstrap keys never used, bound or funded are removed this long after their creation (Document 2). */
export const BOOTSTRAP_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * mcp-passthrough: sells metered chat inference to MCP clients (Document 2, first half). Customer keys run billed
 * completions at `/p/mcp-passthrough/mcp`; the operator configures providers, prices and keys under
 * `/api/v1/plugins/mcp-passthrough/`. Rules and shapes: docs/mcp-passthrough.md.
 *
 * Jobs (ids `mcp-passthrough.<name>`): `sessions-sweep` ends sessions idle for 30 minutes (every minute);
 * `reap-bootstrap-keys` removes unused bootstrap keys after 24 hours (hourly); `refresh-offers` reads the accepted
 * contacts' directories (every ten minutes, and when a contact or a line is accepted). The federation (resale over
 * contacts) lives in federation/.
 */
export default definePlugin({
  async setup(ctx) {
    // The MCP SDK (with zod, some 23 MB) loads only on a node that enabled this plugin.
    const [{ McpEndpoint }, { Sessions, RESUME_WINDOW_MS }] = await Promise.all([import('./mcp/endpoint.js'), import('./mcp/sessions.js')]);
    ctx.db.migrate([...migrations, ...federationMigrations]);
    const now = (): number => ctx.clock.now();
    const store = new McpStore(ctx.db.handle, ctx.db);
    const tx = <T>(fn: () => T): T => ctx.db.tx(fn);
    const contacts = ctx.services.use<ContactsService>('contacts');
    const ledger = ctx.services.use<LedgerService>('ledger');
    const presets = new PresetRegistry(coreProviderPresets);
    const config = new OperatorConfig(
      store,
      tx,
      new TokenCipher(ctx.identity.storageKey('mcp-passthrough:provider-tokens')),
      presets,
      () => ctx.settings.get<string>('defaultCurrency') ?? 'VWL',
      now,
      () => ctx.kernel.node,
    );
    const keys = new Keys(store, config, contacts, now);
    const billing = new Billing(store, tx, contacts, ledger, ctx.log, now);
    ctx.onStop(ledger.onFinal((payment) => billing.onPayment(payment)));
    ctx.onStop(ledger.holdCredit(billing.creditHold));

    // Tests shorten the 125 s deadline to exercise it; a production node cannot.
    const override = ctx.kernel.node.testMode ? Number(ctx.kernel.env('NODE_MCP_REQUEST_TIMEOUT_MS')) : NaN;
    const timeoutMs = Number.isSafeInteger(override) && override > 0 ? override : REQUEST_TIMEOUT_MS;
    const agents = new UpstreamAgents();
    const federation = new FederationStore(ctx.db.handle);
    const ownTor = (): string | null => ctx.kernel.node.addresses.tor;
    const reach = new ContactReach(contacts, ctx.peer, ctx.kernel.outbound, ctx.log);
    const offers = new Offers(federation, tx, contacts, ctx.identity, reach, config, ownTor, ctx.log, now);
    const resale = new Resale(
      federation,
      tx,
      contacts,
      ledger,
      ctx.identity,
      reach,
      new TokenCipher(ctx.identity.storageKey('mcp-passthrough:seller-keys')),
      ctx.manifest.version,
      timeoutMs,
      ctx.log,
      now,
    );
    const health = new Health(now, () => config.settings().cooldownMs);
    const metrics = inferenceMetrics(ctx);
    const budgets = new Budgets(store, () => config.settings().budgetSoftLimitPct, (event, payload) => ctx.events.publish(event, payload), metrics, ctx.log, now);
    const sellers = new Sellers(offers, resale, federation, contacts, now);
    const inference = new Inference(config, presets, keys, billing, agents, timeoutMs, now, metrics, health, budgets, sellers);
    const api = new CustomerApi(store, config, inference, contacts, ctx.identity, () => ctx.kernel.node, new CallGate(now), (limit) => metrics.refused(limit));
    // Tests shorten the resume window to see an unresumed stream's call aborted.
    const resumeOverride = ctx.kernel.node.testMode ? Number(ctx.kernel.env('NODE_MCP_RESUME_WINDOW_MS')) : NaN;
    const resumeWindowMs = Number.isSafeInteger(resumeOverride) && resumeOverride > 0 ? resumeOverride : RESUME_WINDOW_MS;
    const sessions = new Sessions(now, ctx.log, () => resumeWindowMs);
    const endpoint = new McpEndpoint(keys, sessions, api, ctx.manifest.version, ctx.log, now, (key) => effectiveLimits(key, config.settings()).sessions);

    const verifier = new ProofVerifier(federation, contacts, ctx.identity, () => ctx.kernel.node.addresses, now);
    registerOperatorRoutes({
      ctx,
      store,
      config,
      keys,
      sessions,
      presets,
      health,
      federation: () => federationStatus(offers.fresh(), federation.owedCalls()),
      refreshOffers: () => ctx.jobs.kick('refresh-offers'),
    });
    registerPublicRoutes({ ctx, store, keys, api, endpoint, openai: new OpenAiDoor(keys, api, ctx.log, now), log: ctx.log });
    registerFederationRoutes({ ctx, keys, config, contacts, store: federation, verifier, offers });

    ctx.jobs.register({ name: 'sessions-sweep', everyMs: 60_000, run: async () => void (await sessions.sweep()) });
    ctx.jobs.register({ name: 'settle-resales', nextRunAt: () => federation.nextUnsettledAt(), run: () => resale.settleDue() });
    resale.whenUnsettled(() => ctx.jobs.reschedule('settle-resales'));
    ctx.onStop(ledger.onFinal((payment) => resale.onFinal(payment)));
    ctx.jobs.register({
      name: 'reap-bootstrap-keys',
      everyMs: 60 * 60_000,
      run: () => {
        const reaped = tx(() => store.reapBootstrapKeys(now() - BOOTSTRAP_KEY_TTL_MS));
        if (reaped.length) ctx.log.info('reaped unused bootstrap keys', { count: reaped.length, key_ids: reaped });
      },
    });
    ctx.jobs.register({
      name: 'refresh-offers',
      everyMs: OFFER_REFRESH_MS,
      run: async () => {
        const r = await offers.refreshAll();
        ctx.log.info('learned offers refreshed', r);
      },
    });
    // A newly accepted contact may sell something: ask it at once rather than at the next scheduled run.
    for (const event of [CONTACT_EVENTS.accepted, CONTACT_EVENTS.currencyAccepted]) ctx.events.subscribe(event, () => ctx.jobs.kick('refresh-offers'));
    ctx.onStop(async () => {
      await sessions.closeAll('the node is stopping');
      await resale.close();
      agents.close();
    });

    const service: McpPassthroughService = {
      registerPreset: (preset) => presets.register(preset),
      presets: () => presets.list().map((p) => ({ id: p.id, label: p.label })),
      mintBootstrapKey: (input) => {
        const { key, token } = keys.create(
          { label: input.label, contact: input.contactHash ?? undefined, registered_pubkey: input.registeredPubkey ?? undefined },
          'bootstrap',
        );
        return { keyId: key.id, token, currency: key.currency, depositMemo: topupMemo(key.id) };
      },
      keyFunds: (keyId) => {
        const key = store.key(keyId);
        if (!key) return null;
        const toppedUp = store
          .topups(Number.MAX_SAFE_INTEGER, keyId)
          .filter((t) => t.status === 'credited')
          .reduce((sum, t) => sum + t.amount, 0n);
        return { keyId, currency: key.currency, balance: key.balance, debt: key.debt, toppedUp, charged: store.chargedTotal(keyId) };
      },
    };
    ctx.services.provide(MCP_SERVICE, service);
  },
});
