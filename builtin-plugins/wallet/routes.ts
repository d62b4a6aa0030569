import type { PluginContext } from '../../sdk/index.js';

export interface CurrencyTotal {
  currency: string;
  total_amount?: string;
  total_available_credit?: string;
}

/**
 * GET /api/v1/wallet/info. Fee earnings and available credit are empty lists on a node without a ledger:
 * with no credit lines there is nothing earned and nothing available, which is the true answer.
 */
export function registerInfoRoute(ctx: PluginContext): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/wallet/info',
    access: { scope: 'wallet:read' },
    handler: () => ({
      public_key_hash: ctx.identity.pubkeyHash,
      addresses: ctx.kernel.node.addresses,
      fee_earnings: [] as CurrencyTotal[],
      available_credit: [] as CurrencyTotal[],
    }),
  });
}
