/**
 * Customer keys: creation (one-time token), revocation, bearer authentication, and inference admission.
 *
 * Binding: a key may be bound to a contact (`contact` at creation, resolved like every contact reference). The bound
 * contact is the only payer whose top-ups fund the key and, with `funding: credit`, the contact whose credit line
 * carries the key's debt. In `pilot` mode (the default) a key must be bound to an accepted contact at creation, and
 * inference needs that contact to still be accepted when the call runs; `open` mode admits unbound keys. Diagnostics
 * (balance, usage, routes, instructions) never need admission.
 */
import { ApiError, formatMinor } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import { topupMemo } from './billing.js';
import { MAX_ORIGINS_PER_KEY, sameCurrency, type OperatorConfig } from './config.js';
import { limitsView, parseKeyLimits } from './limits.js';
import { normalizeOrigin } from './origins.js';
import type { Funding, KeyKind, KeyLimits, KeyRow, McpStore } from './store.js';
import { bearerToken, newToken, sameHash, tokenHash, tokenHint } from './tokens.js';

const MIN_TTL_SECONDS = 60;
const NO_LIMITS: KeyLimits = { requestsPerMinute: null, tokensPerMinute: null, parallelCalls: null, sessions: null, budget: null, allowedModels: null };
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export interface KeyCreateInput {
  label?: unknown;
  contact?: unknown;
  registered_pubkey?: unknown;
  ttl?: unknown;
  currency?: unknown;
  funding?: unknown;
  [limit: string]: unknown;
}

export interface MintedKey {
  key: KeyRow;
  token: string;
  warnings: string[];
}

function invalid(field: string, message: string, code = 'validation_error'): ApiError {
  return new ApiError(code, 400, message, { field });
}

/** A raw 32-byte public key given as 64 hex characters or base64 / base64url; stored as base64url. */
export function parsePublicKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  let raw: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(v)) raw = Buffer.from(v, 'hex');
  else if (/^[A-Za-z0-9_-]{43}$/.test(v)) raw = Buffer.from(v, 'base64url');
  else if (/^[A-Za-z0-9+/]{43}=$/.test(v)) raw = Buffer.from(v, 'base64');
  return raw && raw.length === 32 ? raw.toString('base64url') : null;
}

export class Keys {
  constructor(
    private readonly store: McpStore,
    private readonly config: OperatorConfig,
    private readonly contacts: ContactsService,
    private readonly now: () => number,
  ) {}

  create(input: KeyCreateInput, kind: KeyKind = 'operator'): MintedKey {
    const settings = this.config.settings();
    const warnings: string[] = [];
    if (typeof input.label !== 'string' || !input.label.trim() || input.label.length > 100 || /[\u0000-\u001f\u007f]/.test(input.label)) {
      throw invalid('label', 'label is required: a text of 1 to 100 characters', input.label === undefined ? 'missing_field' : 'validation_error');
    }
    let currency = settings.currency;
    if (input.currency !== undefined && input.currency !== null) {
      if (typeof input.currency !== 'string' || !sameCurrency(input.currency.trim(), settings.currency)) {
        throw new ApiError('currency_mismatch', 400, `currency must be the settlement currency ${settings.currency}`, { field: 'currency' });
      }
      currency = settings.currency;
    }
    let contactHash: string | null = null;
    if (input.contact !== undefined && input.contact !== null && input.contact !== '') {
      if (typeof input.contact !== 'string') throw invalid('contact', 'contact must be a name, address or key hash');
      const c = this.contacts.resolve(input.contact.trim());
      if (!c.pubkeyHash || !this.contacts.isAccepted(c.pubkeyHash)) {
        throw new ApiError('contact_not_accepted', 400, 'a key can only be bound to an accepted contact', { field: 'contact' });
      }
      contactHash = c.pubkeyHash;
      if (!this.contacts.line(contactHash, currency)) {
        warnings.push(`the contact has no accepted ${currency} line: its top-up payments and credit cannot reach this key until it has one`);
      }
    } else if (settings.mode === 'pilot' && kind === 'operator') {
      throw new ApiError('contact_required', 400, 'in pilot mode a key must be bound to an accepted contact (contact)', { field: 'contact' });
    }
    let funding: Funding = 'prepaid';
    if (input.funding !== undefined && input.funding !== null) {
      if (input.funding !== 'prepaid' && input.funding !== 'credit') throw invalid('funding', 'funding must be prepaid or credit');
      funding = input.funding;
    }
    if (funding === 'credit') {
      if (!contactHash) throw new ApiError('contact_required', 400, 'credit funding needs a bound contact whose credit line carries the debt', { field: 'funding' });
      const line = this.contacts.line(contactHash, currency);
      if (line && (line.creditLimit ?? 0n) === 0n) warnings.push(`the credit this node extends to the contact in ${currency} is 0: calls need a prepaid balance`);
    }
    // One reading of the clock: a ttl is exactly expires_at − created_at.
    const createdAt = this.now();
    let expiresAt: number | null = null;
    if (input.ttl !== undefined && input.ttl !== null) {
      const ttl = input.ttl;
      if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < MIN_TTL_SECONDS || ttl > MAX_TTL_SECONDS) {
        throw invalid('ttl', `ttl must be whole seconds from ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS}`);
      }
      expiresAt = createdAt + ttl * 1000;
    }
    let registeredPubkey: string | null = null;
    if (input.registered_pubkey !== undefined && input.registered_pubkey !== null && input.registered_pubkey !== '') {
      registeredPubkey = parsePublicKey(input.registered_pubkey);
      if (!registeredPubkey) throw invalid('registered_pubkey', 'registered_pubkey must be a 32-byte public key in hex or base64');
    }
    const limits = parseKeyLimits(input, NO_LIMITS);
    if (!contactHash) warnings.push(`the key is not bound to a contact: any payment described ${'`mcp-topup:<key_id>`'} funds it`);
    if (!this.config.models().some((m) => m.enabled)) warnings.push('no model is enabled yet: the key can check its balance, but no call can run');
    const token = newToken();
    const key = this.store.insertKey({
      label: input.label.trim(),
      tokenHash: tokenHash(token),
      tokenHint: tokenHint(token),
      kind,
      contactHash,
      funding,
      registeredPubkey,
      currency,
      createdAt,
      expiresAt,
    });
    this.store.setLimits(key.id, limits);
    return { key: this.store.key(key.id)!, token, warnings };
  }

  revoke(id: number): { key: KeyRow; warnings: string[] } {
    const key = this.store.key(id);
    if (!key) throw new ApiError('key_not_found', 404, `no key ${id}`);
    const warnings: string[] = [];
    if (!this.store.revokeKey(id, this.now())) warnings.push('the key was already revoked');
    if (key.balance > 0n) warnings.push(`the prepaid balance of ${formatMinor(key.balance)} ${key.currency} is not refunded`);
    if (key.debt > 0n) warnings.push(`the contact still owes ${formatMinor(key.debt)} ${key.currency} for this key's calls`);
    return { key: this.store.key(id)!, warnings };
  }

  /** Changes a key's limits, budget and allowed models (the fields of key-update; absent ones stay). */
  update(id: number, body: Record<string, unknown>): KeyRow {
    const key = this.store.key(id);
    if (!key) throw new ApiError('key_not_found', 404, `no key ${id}`);
    this.store.setLimits(id, parseKeyLimits(body, key.limits));
    return this.store.key(id)!;
  }

  /** The key of a bearer header, when the token is one of ours and the key is neither revoked nor expired. */
  authenticate(header: string | string[] | undefined): KeyRow | null {
    const token = bearerToken(header);
    if (!token) return null;
    const hash = tokenHash(token);
    const key = this.store.keyByHash(hash);
    if (!key || !sameHash(key.tokenHash, hash)) return null;
    if (key.revokedAt !== null) return null;
    const now = this.now();
    if (key.expiresAt !== null && key.expiresAt <= now) return null;
    // Any authenticated request is a use (a used bootstrap key is kept); written at most once a minute per key.
    if (key.lastUsedAt === null || now - key.lastUsedAt > 60_000) {
      this.store.touchKey(key.id, now);
      return { ...key, lastUsedAt: now };
    }
    return key;
  }

  /** Why the key may not run inference now, or null when it may. */
  admission(key: KeyRow): string | null {
    if (key.contactHash) {
      if (this.contacts.isBlocked(key.contactHash)) return 'the contact this key is bound to is blocked';
      if (!this.contacts.isAccepted(key.contactHash)) {
        return this.config.settings().mode === 'pilot' ? 'pilot mode: the contact this key is bound to is no longer accepted' : null;
      }
      return null;
    }
    return this.config.settings().mode === 'pilot' ? 'pilot mode: inference needs a key bound to an accepted contact' : null;
  }

  setOrigins(key: KeyRow, value: unknown): string[] {
    if (value === null || value === undefined) {
      this.store.setOrigins(key.id, null);
      return [];
    }
    if (!Array.isArray(value)) throw invalid('allowed_origins', 'allowed_origins must be an array of origins or null');
    const out: string[] = [];
    for (const [i, item] of value.entries()) {
      const o = typeof item === 'string' ? normalizeOrigin(item) : null;
      if (!o) throw invalid(`allowed_origins[${i}]`, `allowed_origins[${i}] is not an origin (scheme://host[:port])`);
      if (!out.includes(o)) out.push(o);
    }
    if (out.length > MAX_ORIGINS_PER_KEY) {
      throw new ApiError('too_many_origins', 400, `a key stores at most ${MAX_ORIGINS_PER_KEY} origins`, { field: 'allowed_origins' });
    }
    this.store.setOrigins(key.id, out);
    return out;
  }

  /** The origins a browser on this key may come from: the key's override, else the operator's defaults. */
  effectiveOrigins(key: KeyRow): string[] {
    return key.allowedOrigins && key.allowedOrigins.length ? key.allowedOrigins : this.config.settings().allowedOrigins;
  }

  view(key: KeyRow): Record<string, unknown> {
    const contact = key.contactHash ? this.contacts.get(key.contactHash) : null;
    const expired = key.expiresAt !== null && key.expiresAt <= this.now();
    return {
      key_id: key.id,
      label: key.label,
      kind: key.kind,
      status: key.revokedAt !== null ? 'revoked' : expired ? 'expired' : 'active',
      revoked: key.revokedAt !== null,
      token_hint: `…${key.tokenHint}`,
      contact: key.contactHash ? { pubkey_hash: key.contactHash, name: contact?.name ?? null, status: contact?.status ?? 'unknown' } : null,
      funding: key.funding,
      deposit_memo: topupMemo(key.id),
      registered_pubkey: key.registeredPubkey,
      currency: key.currency,
      balance: formatMinor(key.balance),
      debt: formatMinor(key.debt),
      allowed_origins: key.allowedOrigins ?? [],
      created_at: iso(key.createdAt),
      expires_at: iso(key.expiresAt),
      last_used_at: iso(key.lastUsedAt),
      revoked_at: iso(key.revokedAt),
      limits: limitsView(key, this.config.settings()),
    };
  }
}
