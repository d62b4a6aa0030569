/**
 * Which contact a reference names: a key hash (64 hex), an address (http, https or onion; normalized), or a
 * name. Names need not be unique: an exact (case-sensitive) match wins; without one, a case-insensitive match;
 * two or more candidates at the deciding step are an `ambiguous_contact` error that lists them, never a silent
 * pick (the reference shipped that bug).
 */
import { ApiError } from '../../sdk/index.js';
import { normalizeAddress } from '../../sdk/address.js';
import type { ContactRow, ContactStore } from './store.js';
import { HASH_RULE } from './validate.js';

export const contactNotFound = (reference: string): ApiError =>
  new ApiError('contact_not_found', 404, `Contact not found: ${reference}`);

/** Whether the text is meant as an address (a scheme, or an onion name) rather than a name. */
const looksLikeAddress = (text: string): boolean => /:\/\//.test(text) || /\.onion(:\d+)?\/?$/i.test(text);

export function resolveContact(store: ContactStore, reference: string): ContactRow {
  const ref = reference.trim();
  if (ref === '') throw contactNotFound(reference);
  if (HASH_RULE.test(ref)) {
    const byHash = store.byHash(ref);
    if (byHash) return byHash;
    throw contactNotFound(reference);
  }
  if (looksLikeAddress(ref)) {
    const normalized = normalizeAddress(ref);
    if (!normalized) throw new ApiError('invalid_address', 400, `Not a valid http, https or onion address: ${reference}`);
    const byAddress = store.byAddress(normalized);
    if (byAddress) return byAddress;
    throw contactNotFound(reference);
  }
  let candidates = store.byName(ref, true);
  if (candidates.length === 0) candidates = store.byName(ref, false);
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw contactNotFound(reference);
  throw new ApiError(
    'ambiguous_contact',
    400,
    `${candidates.length} contacts are named "${ref}"; name one by address or public key hash`,
    {
      candidates: candidates.map((c) => ({
        name: c.name,
        pubkey_hash: c.pubkey_hash,
        status: c.status,
        addresses: { http: c.addr_http, https: c.addr_https, tor: c.addr_tor },
      })),
    },
  );
}
