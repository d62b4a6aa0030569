/**
 * The recipient of a payment: a contact by name, address or key hash, or (for routing) any address.
 */
import { ApiError, type PluginContext } from '../../sdk/index.js';
import { normalizeAddress } from '../../sdk/address.js';
import type { ContactInfo, ContactsService } from '../contacts/api.js';

const looksLikeAddress = (text: string): boolean => /:\/\//.test(text) || /\.onion(:\d+)?\/?$/i.test(text);

export interface Recipient {
  contact: ContactInfo;
  pubkeyHash: string;
  name: string;
  address: string | null;
}

/** Where this node reaches the contact: the address its transport settings pick first (a payment goes there). */
export const contactAddress = (ctx: PluginContext, c: ContactInfo): string | null =>
  ctx.peer.firstAddress(c.addresses) ?? c.addresses.tor ?? c.addresses.https ?? c.addresses.http ?? null;

/**
 * The contact a payment goes to, by name, address or key hash. Direct payments need an accepted contact with an
 * accepted line in the currency; anything else is `no_route` here (the send route then tries routing: `sendTarget`).
 */
export function resolveRecipient(ctx: PluginContext, contacts: ContactsService, reference: string, currency: string): Recipient {
  const ref = reference.trim();
  if (ref === '') throw new ApiError('invalid_address', 400, 'address must name a contact (name, address or public key hash)', { field: 'address' });
  const own = ctx.kernel.node.addresses;
  const normalized = looksLikeAddress(ref) ? normalizeAddress(ref) : null;
  if (ref.toLowerCase() === ctx.identity.pubkeyHash || (normalized && [own.http, own.https, own.tor].some((a) => a && normalizeAddress(a) === normalized))) {
    throw new ApiError('self_send', 400, 'You cannot send to your own wallet');
  }
  let contact: ContactInfo;
  try {
    contact = contacts.resolve(ref);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'contact_not_found' && normalized) {
      throw new ApiError('no_route', 400, `${normalized} is not one of your contacts, and no route to it can be searched here (the routing plugin is off).`);
    }
    throw err;
  }
  if (contact.pubkeyHash === ctx.identity.pubkeyHash) throw new ApiError('self_send', 400, 'You cannot send to your own wallet');
  const name = contact.name ?? contact.pubkeyHash ?? ref;
  if (!contact.pubkeyHash || contact.status !== 'accepted' || !contacts.isAccepted(contact.pubkeyHash, currency)) {
    const why =
      contact.status === 'blocked'
        ? `${name} is blocked`
        : contact.status !== 'accepted' || !contact.pubkeyHash
          ? `${name} has not accepted you as a contact yet`
          : `you and ${name} have no accepted ${currency} line`;
    throw new ApiError('no_route', 400, `No direct payment to ${name} in ${currency}: ${why}`);
  }
  return { contact, pubkeyHash: contact.pubkeyHash, name, address: contactAddress(ctx, contact) };
}

export type SendTarget = { kind: 'direct'; recipient: Recipient } | { kind: 'route'; address: string; name: string; contact: boolean };

/**
 * Where a payment goes: straight to a contact over its line, or, when there is no such line and a router is there,
 * through routing to the address (typed, or the contact's own). A blocked contact is never paid.
 */
export function sendTarget(ctx: PluginContext, contacts: ContactsService, reference: string, currency: string, routable: boolean): SendTarget {
  try {
    return { kind: 'direct', recipient: resolveRecipient(ctx, contacts, reference, currency) };
  } catch (err) {
    if (!routable || !(err instanceof ApiError) || err.code !== 'no_route') throw err;
    const ref = reference.trim();
    let contact: ContactInfo | null = null;
    try {
      contact = contacts.resolve(ref);
    } catch {
      contact = null;
    }
    if (contact?.status === 'blocked') throw err;
    const address = contact ? contactAddress(ctx, contact) : looksLikeAddress(ref) ? normalizeAddress(ref) : null;
    if (!address) throw err;
    return { kind: 'route', address, name: contact?.name ?? address, contact: contact !== null };
  }
}
