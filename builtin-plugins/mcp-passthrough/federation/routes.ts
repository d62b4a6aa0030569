/**
 * The federation routes of Document 2: `POST /p/mcp-passthrough/directory` and `POST /p/mcp-passthrough/request-key`,
 * answered in the customer routes' plain JSON (`{ok: false, error: {code, message}}` on refusal).
 *
 * Admission. A caller is verified by a valid contact proof (`assert`) or by a customer key (bearer) bound to an accepted
 * contact. A proof that fails is refused whatever the mode. A bearer that is not such a key proves nothing: in `pilot`
 * mode the caller is refused (`401 proof_required`), in `open` mode it is served as unverified.
 *
 *   directory     verified: own models and learned offers; unverified (open mode): own models only
 *   request-key   verified by proof: a key bound to the proved contact (credit funding on the line this node extends
 *                 to it), at most 5 unfunded ones per contact; no proof (open mode only): an unbound key, the supplied
 *                 public key recorded untrusted; at most 500 unfunded bootstrap keys in all
 */
import { ApiError, RawReply, type PluginContext, type RouteRequest } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import { topupMemo } from '../billing.js';
import type { OperatorConfig } from '../config.js';
import type { Keys } from '../keys.js';
import { failure, json, JSON_TYPE, parseBody } from '../public-routes.js';
import type { Offers } from './offers.js';
import type { ProofVerifier } from './proofs.js';
import type { FederationStore } from './store.js';

/** Document 2, "Plugin routes". */
export const FEDERATION_LIMITS = {
  directory: { rateLimitPerMinute: 60, maxBodyBytes: 4096 },
  requestKey: { rateLimitPerMinute: 10, maxBodyBytes: 4096 },
} as const;
export const MAX_UNFUNDED_KEYS = 500;
export const MAX_UNFUNDED_KEYS_PER_CONTACT = 5;

export interface FederationDeps {
  ctx: PluginContext;
  keys: Keys;
  config: OperatorConfig;
  contacts: ContactsService;
  store: FederationStore;
  verifier: ProofVerifier;
  offers: Offers;
}

type Caller = { verified: true; pubkeyHash: string } | { verified: false; pubkeyHash: null };

export function registerFederationRoutes(deps: FederationDeps): void {
  const { ctx, keys, config, contacts, store, verifier, offers } = deps;

  /** The caller as admitted, or the refusal to answer. */
  const admit = (req: RouteRequest, body: Record<string, unknown>): Caller | RawReply => {
    if (body.assert !== undefined) {
      const r = verifier.verify(body.assert);
      if (!r.ok) return failure(r.refusal.status, r.refusal.code, r.refusal.message);
      return { verified: true, pubkeyHash: r.pubkeyHash };
    }
    const key = req.headers.authorization ? keys.authenticate(req.headers.authorization) : null;
    if (key?.contactHash && contacts.isAccepted(key.contactHash) && !contacts.isBlocked(key.contactHash)) {
      return { verified: true, pubkeyHash: key.contactHash };
    }
    if (config.settings().mode === 'pilot') {
      return failure(401, 'proof_required', 'pilot mode: a contact proof (assert) or a customer key bound to an accepted contact is required; a bearer header alone is not proof');
    }
    return { verified: false, pubkeyHash: null };
  };

  const bodyOf = (req: RouteRequest): Record<string, unknown> | RawReply => {
    const parsed = parseBody(req);
    if (!parsed.ok) return failure(400, 'invalid_json', 'the body is not JSON');
    const b = parsed.body;
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return failure(400, 'validation_error', 'the body must be a JSON object');
    return b as Record<string, unknown>;
  };

  ctx.routes.public({
    method: 'POST',
    path: 'directory',
    produces: JSON_TYPE,
    ...FEDERATION_LIMITS.directory,
    rateLimitBy: 'credential',
    handler: (req) => {
      const body = bodyOf(req);
      if (body instanceof RawReply) return body;
      const caller = admit(req, body);
      if (caller instanceof RawReply) return caller;
      return json({ v: 1, entries: offers.directory(caller) });
    },
  });

  ctx.routes.public({
    method: 'POST',
    path: 'request-key',
    produces: JSON_TYPE,
    ...FEDERATION_LIMITS.requestKey,
    rateLimitBy: 'credential',
    handler: (req) => {
      const body = bodyOf(req);
      if (body instanceof RawReply) return body;
      if (body.assert === undefined && config.settings().mode === 'pilot') {
        return failure(401, 'proof_required', 'pilot mode: request-key needs a contact proof (assert)');
      }
      const caller = body.assert === undefined ? ({ verified: false, pubkeyHash: null } as const) : admit(req, body);
      if (caller instanceof RawReply) return caller;
      if (store.unfundedBootstrapKeys() >= MAX_UNFUNDED_KEYS) {
        return failure(429, 'too_many_keys', `this node holds ${MAX_UNFUNDED_KEYS} unfunded bootstrap keys; fund one or try later`);
      }
      if (caller.verified && store.unfundedBootstrapKeys(caller.pubkeyHash) >= MAX_UNFUNDED_KEYS_PER_CONTACT) {
        return failure(429, 'too_many_keys', `a contact holds at most ${MAX_UNFUNDED_KEYS_PER_CONTACT} unfunded bootstrap keys here; fund one first`);
      }
      const label = body.label ?? (caller.verified ? `contact ${caller.pubkeyHash.slice(0, 16)}` : 'bootstrap key');
      try {
        const { key, token } = keys.create(
          caller.verified
            ? { label, contact: caller.pubkeyHash, funding: 'credit' }
            : { label, registered_pubkey: body.registered_pubkey ?? body.pubkey ?? null },
          'bootstrap',
        );
        const node = ctx.kernel.node;
        return json({
          ok: true,
          key_id: key.id,
          token,
          currency: key.currency,
          deposit_memo: topupMemo(key.id),
          deposit_pubkey: ctx.identity.publicKey.toString('base64url'),
          deposit_onion: node.addresses.tor,
          note: caller.verified
            ? `Bound to your node (${caller.pubkeyHash.slice(0, 16)}…): calls run on the credit this node extends to you; pay them down from your node with the description "${topupMemo(key.id)}".`
            : `Unbound: any payment to this node with the description "${topupMemo(key.id)}" funds it. Unused unfunded keys are removed after 24 hours.`,
        });
      } catch (err) {
        if (err instanceof ApiError) return failure(err.status, err.code, err.message, err.context ?? {});
        throw err;
      }
    },
  });
}
