/**
 * The `system` service: how feature plugins plug into the system endpoints without the system plugin knowing
 * them. A plugin lists `"requires": ["system"]` in its plugin.json and, in setup:
 *
 *   const system = ctx.services.use<SystemService>('system');
 *   system.registerSyncHandler('contacts', async () => ({ synced: 3 }));
 *   system.registerMetrics('contacts', () => ({ accepted: 12 }));
 *
 * Registrations live for one load generation: a restart reloads every plugin, and each registers again.
 */
export const SYNC_TYPES = ['contacts', 'transactions', 'balances'];
/** The plugin expected to own each sync type (named in the sync_unavailable error). */
export const SYNC_OWNERS = {
    contacts: 'contacts',
    transactions: 'ledger',
    balances: 'ledger',
};
//# sourceMappingURL=api.js.map