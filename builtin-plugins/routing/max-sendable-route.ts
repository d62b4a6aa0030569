/**
 * `GET /api/v1/wallet/max-sendable?address=...&currency=...`: the most this node can send to an address now
 * (capacity.ts). Served by the routing plugin, whose probe answers it, under the wallet's path where `send` is.
 */
import { ApiError, type PluginContext } from '../../sdk/index.js';
import { normalizeAddress } from '../../sdk/address.js';
import { checkCurrency } from '../../sdk/amounts.js';
import type { ContactsService } from '../contacts/api.js';
import type { CapacityProbe } from './capacity.js';
import { maxSendableResponse } from './responses.js';

/** The address a reference names: an address as typed, or a contact's (by name or key hash) where it is reached. */
function destination(ctx: PluginContext, contacts: ContactsService, reference: string): string {
  const ref = reference.trim();
  const named = (): string | null => {
    const c = contacts.resolve(ref);
    return ctx.peer.firstAddress(c.addresses) ?? c.addresses.tor ?? c.addresses.https ?? c.addresses.http ?? null;
  };
  const address = normalizeAddress(ref) ?? named();
  if (!address) throw new ApiError('invalid_address', 400, 'address must be an HTTP, HTTPS or Tor address, or name a contact with one', { field: 'address' });
  const own = ctx.kernel.node.addresses;
  if ([own.http, own.https, own.tor].some((a) => a && normalizeAddress(a) === address)) throw new ApiError('self_send', 400, 'You cannot send to your own wallet');
  return address;
}

export function registerMaxSendableRoute(ctx: PluginContext, contacts: ContactsService, probe: CapacityProbe): void {
  ctx.routes.add<unknown, { address: string; currency?: string }>({
    method: 'GET',
    path: '/api/v1/wallet/max-sendable',
    access: { scope: 'wallet:read' },
    response: maxSendableResponse,
    query: {
      type: 'object',
      required: ['address'],
      properties: { address: { type: 'string', minLength: 1, maxLength: 300 }, currency: { type: 'string' } },
    },
    errorCodes: { address: 'invalid_address', currency: 'invalid_currency' },
    handler: async (req) => {
      const currency = checkCurrency(ctx, req.query.currency ?? ctx.settings.get<string>('defaultCurrency'));
      return probe.maxSendable(destination(ctx, contacts, req.query.address), currency);
    },
  });
}
