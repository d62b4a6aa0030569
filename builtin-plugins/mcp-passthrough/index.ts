import { definePlugin } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import { MCP_SERVICE, type McpPassthroughService } from './api.js';
import { Billing, topupMemo } from './billing.js';
import { OperatorConfig } from './config.js';
import { CustomerApi } from './customer.js';
import { Inference, REQUEST_TIMEOUT_MS } from './inference.js';
import { Keys } from './keys.js';
import { registerPublicRoutes } from './public-routes.js';
import { registerOperatorRoutes } from './routes.js';
import { TokenCipher } from './secrets.js';
import { McpStore, migrations } from './store.js';
import { UpstreamAgents } from './upstream/call.js';
import { coreProviderPresets, PresetRegistry } from './upstream/presets.js';

/** Bootstrap keys never used, bound or funded are removed this long after their creation (Document 2). */
export const BOOTSTRAP_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * mcp-passthrough: sells metered chat inference to MCP clients (Document 2, first half). Customer keys run billed
 * completions at `/p/mcp-passthrough/mcp`; the operator configures providers, prices and keys under
 * `/api/v1/plugins/mcp-passthrough/`. Rules and shapes: docs/mcp-passthrough.md.
 *
 * Jobs (ids `mcp-passthrough.<name>`): `sessions-sweep` ends sessions idle for 30 minutes (every minute);
 * `reap-bootstrap-keys` removes unused bootstrap keys after 24 hours (hourly).
 */
export default definePlugin({
  async setup(ctx) {
    // The MCP SDK (with zod, some 23 MB) loads only on a node that enabled this plugin.
    const [{ McpEndpoint }, { Sessions }] = await Promise.all([import('./mcp/endpoint.js'), import('./mcp/sessions.js')]);
    ctx.db.migrate(migrations);
    const now = (): number => ctx.clock.now();
    const store = new McpStore(ctx.db.handle);
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
    );
    const keys = new Keys(store, config, contacts, now);
    const billing = new Billing(store, tx, contacts, ledger, ctx.log, now);
    ctx.onStop(ledger.onFinal((payment) => billing.onPayment(payment)));
    ctx.onStop(ledger.holdCredit(billing.creditHold));

    // Tests shorten the 125 s deadline to exercise it; a production node cannot.
    const override = ctx.kernel.node.testMode ? Number(ctx.kernel.env('NODE_MCP_REQUEST_TIMEOUT_MS')) : NaN;
    const timeoutMs = Number.isSafeInteger(override) && override > 0 ? override : REQUEST_TIMEOUT_MS;
    const agents = new UpstreamAgents();
    const inference = new Inference(config, presets, keys, billing, agents, timeoutMs, now);
    const api = new CustomerApi(store, config, inference, contacts, ctx.identity, () => ctx.kernel.node);
    const sessions = new Sessions(now, ctx.log);
    const endpoint = new McpEndpoint(keys, sessions, api, ctx.manifest.version, ctx.log, now);

    registerOperatorRoutes({ ctx, store, config, keys, sessions, presets });
    registerPublicRoutes({ ctx, store, keys, api, endpoint, log: ctx.log });

    ctx.jobs.register({ name: 'sessions-sweep', everyMs: 60_000, run: async () => void (await sessions.sweep()) });
    ctx.jobs.register({
      name: 'reap-bootstrap-keys',
      everyMs: 60 * 60_000,
      run: () => {
        const reaped = tx(() => store.reapBootstrapKeys(now() - BOOTSTRAP_KEY_TTL_MS));
        if (reaped.length) ctx.log.info('reaped unused bootstrap keys', { count: reaped.length, key_ids: reaped });
      },
    });
    ctx.onStop(async () => {
      await sessions.closeAll('the node is stopping');
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
