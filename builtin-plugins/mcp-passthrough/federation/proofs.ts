/**
 * Contact proofs (Document 2, "Contact proof"): how a node shows a contact's directory and request-key routes that it
 * is that contact. The proof is `assert {v: 1, pubkey_hash, nonce, ts, sig}`; `sig` is a plugin assertion of the
 * prover's node under the domain `mcp-passthrough:directory-auth:v1` over the challenge
 *
 *   "mcp-passthrough:directory-auth:v1" LF "1" LF <audience> LF <pubkey_hash> LF <nonce> LF <ts>
 *
 * where the audience is the recipient's address as the prover reaches it (its onion address over Tor, else the
 * http(s) base URL), so a proof made for one node is worth nothing at another. docs/protocol.md has the exact bytes.
 *
 * The verifier checks, in this order: the shape; that the prover is an accepted contact whose key is known; the
 * clock window (120 s either side); the signature against each of this node's own addresses as audience; and last
 * the nonce, recorded so that the same proof is never accepted twice (the check and the record are one statement).
 */
import { randomBytes } from 'node:crypto';
import type { IdentityApi, NodeAddresses } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import type { FederationStore } from './store.js';

export const PROOF_DOMAIN = 'mcp-passthrough:directory-auth:v1';
export const PROOF_VERSION = 1;
/** Document 2: the contact-proof clock window, either side. */
export const PROOF_WINDOW_S = 120;
const PLUGIN = 'mcp-passthrough';

export interface ContactProof {
  v: number;
  pubkey_hash: string;
  nonce: string;
  ts: number;
  sig: string;
}

/** A refused proof: the code and HTTP status the federation routes answer with. */
export interface ProofRefusal {
  code: 'invalid_proof' | 'not_a_contact' | 'proof_expired' | 'bad_signature' | 'proof_replayed';
  status: number;
  message: string;
}

export function challengeBytes(audience: string, pubkeyHash: string, nonce: string, ts: number): Buffer {
  return Buffer.from(`${PROOF_DOMAIN}\n${PROOF_VERSION}\n${audience}\n${pubkeyHash}\n${nonce}\n${ts}`, 'utf8');
}

/**
 * The audience form of an address: an onion address alone (without scheme or port), else the base URL lower-cased
 * without trailing slashes. The prover names the address it reaches the recipient at; the recipient accepts any of
 * its own addresses.
 */
export function audienceOf(address: string): string {
  const a = address.trim().toLowerCase().replace(/\/+$/, '');
  const onion = /^(?:https?:\/\/)?([a-z2-7]{56}\.onion)(?::\d+)?$/.exec(a);
  return onion ? onion[1]! : a;
}

/** This node's proof for the node it reaches at `audience` (an audienceOf form). */
export function makeProof(identity: Pick<IdentityApi, 'pubkeyHash' | 'assert'>, audience: string, nowMs: number): ContactProof {
  const nonce = randomBytes(16).toString('hex');
  const ts = Math.floor(nowMs / 1000);
  const sig = identity.assert(PROOF_DOMAIN, challengeBytes(audience, identity.pubkeyHash, nonce, ts)).toString('base64url');
  return { v: PROOF_VERSION, pubkey_hash: identity.pubkeyHash, nonce, ts, sig };
}

const refuse = (code: ProofRefusal['code'], status: number, message: string): ProofRefusal => ({ code, status, message });

export class ProofVerifier {
  constructor(
    private readonly store: FederationStore,
    private readonly contacts: ContactsService,
    private readonly identity: Pick<IdentityApi, 'verifyAssertion'>,
    private readonly addresses: () => NodeAddresses,
    private readonly now: () => number,
  ) {}

  /** The proved contact's key hash, or why the proof is refused. */
  verify(value: unknown): { ok: true; pubkeyHash: string } | { ok: false; refusal: ProofRefusal } {
    const fail = (r: ProofRefusal) => ({ ok: false as const, refusal: r });
    const p = value as Partial<ContactProof> | null;
    if (
      typeof p !== 'object' || p === null || Array.isArray(p) ||
      p.v !== PROOF_VERSION ||
      typeof p.pubkey_hash !== 'string' || !/^[0-9a-f]{64}$/.test(p.pubkey_hash) ||
      typeof p.nonce !== 'string' || !/^[0-9a-f]{32}$/.test(p.nonce) ||
      typeof p.ts !== 'number' || !Number.isSafeInteger(p.ts) ||
      typeof p.sig !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(p.sig)
    ) {
      return fail(refuse('invalid_proof', 400, 'assert must be {v: 1, pubkey_hash (64 hex), nonce (32 hex), ts (Unix seconds), sig (base64url)}'));
    }
    const key = this.contacts.isAccepted(p.pubkey_hash) && !this.contacts.isBlocked(p.pubkey_hash) ? this.contacts.publicKey(p.pubkey_hash) : null;
    if (!key) return fail(refuse('not_a_contact', 403, 'the proof is not from an accepted contact of this node'));
    const nowS = Math.floor(this.now() / 1000);
    if (Math.abs(nowS - p.ts) > PROOF_WINDOW_S) {
      return fail(refuse('proof_expired', 401, `the proof's time is more than ${PROOF_WINDOW_S} s away from this node's clock`));
    }
    const sig = Buffer.from(p.sig, 'base64url');
    const a = this.addresses();
    const audiences = [a.tor, a.https, a.http].filter((x): x is string => !!x).map(audienceOf);
    const signed = audiences.some((aud) => this.identity.verifyAssertion(key, PLUGIN, PROOF_DOMAIN, challengeBytes(aud, p.pubkey_hash!, p.nonce!, p.ts!), sig));
    if (!signed) return fail(refuse('bad_signature', 401, 'the proof does not verify for this node as its audience'));
    // Kept until the window has passed for this ts: afterwards the clock check refuses the proof anyway.
    if (!this.store.useNonce(p.pubkey_hash, p.nonce, (p.ts + PROOF_WINDOW_S + 1) * 1000, this.now())) {
      return fail(refuse('proof_replayed', 401, 'this proof was already used'));
    }
    return { ok: true, pubkeyHash: p.pubkey_hash };
  }
}
