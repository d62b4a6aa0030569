import { definePlugin } from '../../sdk/index.js';
import { PAYBACK_RAIL_POINT, PAYBACK_SERVICE } from '../../sdk/payback-rail.js';
import type { ContactsService } from '../contacts/api.js';
import { PaybackCore } from './core.js';
import { FetchFlow } from './messages.js';
import { coreRails } from './rails/index.js';
import { RailRegistry } from './registry.js';
import { registerRoutes } from './routes.js';
import { migrations } from './store.js';

/**
 * Payback methods: how contacts may settle what this node is owed. Routes under /api/v1/payback-methods, the
 * `payback.fetch` peer message (accepted contacts fetch our shared methods), and the `payback` service through
 * which other plugins add rails (api.ts). Rules and shapes: docs/api/payback.md; the rails: docs/payback-rails.md.
 */
export default definePlugin({
  setup(ctx) {
    ctx.db.migrate(migrations);
    const registry = new RailRegistry(coreRails, (message, fields) => ctx.log.warn(message, fields));
    const core = new PaybackCore(ctx, registry);
    const flow = new FetchFlow(core, ctx.services.use<ContactsService>('contacts'));
    flow.register();
    registerRoutes(core, flow);
    ctx.services.provide(PAYBACK_SERVICE, registry.service());
    ctx.sandbox.extensionPoint(PAYBACK_RAIL_POINT, registry.sandboxSlot());
  },
});
