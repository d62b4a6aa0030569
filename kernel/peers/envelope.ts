import { randomBytes } from 'node:crypto';
import type { NodeAddresses, PeerSender } from '../../sdk/index.js';
import type { Sealed, SealedReply } from '../crypto/seal.js';
import { pubkeyHash } from '../crypto/derive.js';
import { openReply, sealReply, type SealingSessions } from '../crypto/seal.js';
import { verify } from '../crypto/sign.js';
import { pairMac, pairMacMatches } from '../crypto/pair-key.js';
import type { Identity } from '../identity.js';

/** How long a message stays acceptable after (and before) its timestamp. */
export const PEER_WINDOW_SECONDS = 300;
const SIG_DOMAIN = 'wn-peer-v1';
const HELLO_DOMAIN = 'wn-hello-v1';

/** The signed, unencrypted part of a message. Travels as a JSON string so the signed bytes are exact. */
export interface PeerHeader {
  v: 1;
  from: { pubkey: string; sealing_key: string; addresses: NodeAddresses };
  /** Recipient's pubkey hash: a message is valid for one node only. */
  to: string;
  ts: number;
  /** Random per envelope: the replay cache key together with the sender. */
  nonce: string;
  /** Stable per logical message, the same across retries. */
  mid: string;
  /** Set on messages the sender may send again (queued ones): the receiver records its reply and answers a repeat from the record. */
  rep?: true;
  /**
   * On requests: the sender takes a reply with no signature. The reply is sealed under a key only the two ends can
   * derive, with its header as associated data, so the seal alone proves who wrote it (docs/protocol.md, section 5).
   */
  sr?: true;
  /** On replies: the nonce of the request answered. */
  re?: string;
  /**
   * On replies: the sender may authenticate its next requests to this node with a pair MAC instead of a signature
   * (this node holds its sealing key, bound to its identity by a signature it verified; docs/protocol.md, section 4).
   */
  ma?: true;
}

export interface WireEnvelope {
  header: string;
  /** Requests are sealed to the recipient's key (with `epk`); replies under the key derived from the request. */
  body: Sealed | SealedReply;
  /** Absent on a reply to a request that said `sr`, and on a request that carries `mac`. */
  sig?: string;
  /** A request's pair MAC, in place of `sig`, to a node whose reply said `ma`. */
  mac?: string;
}

export class EnvelopeError extends Error {
  constructor(
    readonly code: 'malformed' | 'wrong_recipient' | 'expired' | 'bad_signature' | 'undecryptable' | 'unexpected_sender',
    message: string,
  ) {
    super(message);
    this.name = 'EnvelopeError';
  }
}

const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');

function signedBytes(header: string, body: { epk?: string; iv: string; ct: string }): Buffer {
  return Buffer.from(`${SIG_DOMAIN}\n${header}\n${body.epk ?? ''}.${body.iv}.${body.ct}`, 'utf8');
}

export const newNonce = (): string => randomBytes(16).toString('hex');

function headerFor(
  identity: Identity,
  addresses: NodeAddresses,
  to: string,
  ids: { mid: string; re?: string; repeatable?: boolean; sealedReply?: boolean; macAccepted?: boolean },
  nowMs: number,
): { header: string; nonce: string } {
  const nonce = newNonce();
  const headerObj: PeerHeader = {
    v: 1,
    from: { pubkey: b64u(identity.publicKey), sealing_key: b64u(identity.sealingPublicKey), addresses },
    to,
    ts: Math.floor(nowMs / 1000),
    nonce,
    mid: ids.mid,
    ...(ids.repeatable ? { rep: true as const } : {}),
    ...(ids.sealedReply ? { sr: true as const } : {}),
    ...(ids.re ? { re: ids.re } : {}),
    ...(ids.macAccepted ? { ma: true as const } : {}),
  };
  return { header: JSON.stringify(headerObj), nonce };
}

/**
 * A request: sealed to the recipient's key (in the sender's current session with it), signed, or authenticated by
 * `macKey` (the pair key toward the recipient) for a recipient that said it takes a pair MAC. Keep `replyKey` to open
 * the answer.
 */
export function buildEnvelope(
  identity: Identity,
  addresses: NodeAddresses,
  recipient: { pubkeyHash: string; sealingKey: Buffer },
  payload: object,
  ids: { mid: string; repeatable?: boolean },
  nowMs: number,
  sessions: SealingSessions,
  macKey?: Buffer,
): { wire: WireEnvelope & { body: Sealed }; nonce: string; replyKey: Buffer } {
  const { header, nonce } = headerFor(identity, addresses, recipient.pubkeyHash, { ...ids, sealedReply: true }, nowMs);
  const { sealed: body, replyKey } = sessions.seal(recipient.sealingKey, JSON.stringify(payload), header, nowMs);
  const bytes = signedBytes(header, body);
  const auth = macKey ? { mac: pairMac(macKey, bytes) } : { sig: b64u(identity.sign(bytes)) };
  return { wire: { header, body, ...auth }, nonce, replyKey };
}

/**
 * The answer to a request, sealed under the key both sides derived from it; signed only for a sender that did not
 * say it takes the seal alone (`sr`: an older node verifies every reply's signature).
 */
export function buildReplyEnvelope(
  identity: Identity,
  addresses: NodeAddresses,
  to: string,
  replyKey: Buffer,
  payload: object,
  ids: { mid: string; re: string; signed: boolean; macAccepted?: boolean },
  nowMs: number,
): WireEnvelope {
  const { header } = headerFor(identity, addresses, to, ids, nowMs);
  const body = sealReply(replyKey, JSON.stringify(payload), header);
  return ids.signed ? { header, body, sig: b64u(identity.sign(signedBytes(header, body))) } : { header, body };
}

const isStr = (v: unknown): v is string => typeof v === 'string';

function decodeKey(text: unknown): Buffer | null {
  if (!isStr(text) || !/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const raw = Buffer.from(text, 'base64url');
  return raw.length === 32 ? raw : null;
}

function parseAddresses(v: unknown): NodeAddresses | null {
  if (typeof v !== 'object' || v === null) return null;
  const a = v as Record<string, unknown>;
  const pick = (k: string): string | null => (isStr(a[k]) && (a[k] as string).length <= 300 ? (a[k] as string) : null);
  return { http: pick('http'), https: pick('https'), tor: pick('tor') };
}

export interface OpenedEnvelope {
  header: PeerHeader;
  sender: PeerSender;
  payload: Record<string, unknown>;
  /** For a request: the key its reply is sealed with. */
  replyKey: Buffer | null;
}

const malformed = (what: string): never => {
  throw new EnvelopeError('malformed', `malformed envelope: ${what}`);
};

/** An envelope whose cheap checks passed: its header is read, nothing is verified or decrypted yet. */
export interface InspectedEnvelope {
  header: PeerHeader;
  /** Hash of the key the header names: only a claim until the signature is verified. */
  claimedSender: string;
  /**
   * What the authentication and the decryption need: `sig`, or for a request `mac` (a pair MAC) instead; both null on
   * an unsigned reply, which the seal authenticates.
   */
  readonly signed: {
    header: string;
    sig: string | null;
    mac: string | null;
    publicKey: Buffer;
    sealingKey: Buffer;
    addresses: NodeAddresses;
    parts: { epk?: string; iv: string; ct: string };
  };
}

/**
 * The checks that cost no cryptography: shape, recipient, clock window. What it returns lets the caller refuse a
 * replay before paying for the signature and the decryption.
 */
export function inspectEnvelope(identity: Identity, raw: unknown, nowMs: number, isReply = false): InspectedEnvelope {
  if (typeof raw !== 'object' || raw === null) return malformed('not an object');
  const { header, body, sig, mac } = raw as Record<string, unknown>;
  // A request carries a signature or a pair MAC, never both; a reply, a signature or nothing.
  const authShaped = isReply ? mac === undefined && (isStr(sig) || sig === undefined) : isStr(sig) ? mac === undefined : sig === undefined && isStr(mac);
  if (!isStr(header) || header.length > 4096 || !authShaped) return malformed('header or signature missing');
  if (typeof body !== 'object' || body === null) return malformed('body missing');
  const sealed = body as Record<string, unknown>;
  if ((isReply ? sealed.epk !== undefined : !isStr(sealed.epk)) || !isStr(sealed.iv) || !isStr(sealed.ct)) return malformed('body fields missing');
  let h: PeerHeader;
  try {
    h = JSON.parse(header) as PeerHeader;
  } catch {
    return malformed('header is not JSON');
  }
  const publicKey = decodeKey(h?.from?.pubkey);
  const sealingKey = decodeKey(h?.from?.sealing_key);
  const addresses = parseAddresses(h?.from?.addresses);
  if (h.v !== 1 || !publicKey || !sealingKey || !addresses) return malformed('sender keys');
  if (!isStr(h.to) || !isStr(h.nonce) || !/^[0-9a-f]{32}$/.test(h.nonce) || !isStr(h.mid) || h.mid.length > 128) {
    return malformed('ids');
  }
  if (typeof h.ts !== 'number' || !Number.isInteger(h.ts)) return malformed('timestamp');
  if (h.to !== identity.pubkeyHash) throw new EnvelopeError('wrong_recipient', 'envelope addressed to another node');
  if (Math.abs(nowMs / 1000 - h.ts) > PEER_WINDOW_SECONDS) throw new EnvelopeError('expired', 'envelope outside the 300-second window');
  const parts = { ...(isReply ? {} : { epk: sealed.epk as string }), iv: sealed.iv, ct: sealed.ct };
  return {
    header: h,
    claimedSender: pubkeyHash(publicKey),
    signed: { header, sig: isStr(sig) ? sig : null, mac: isStr(mac) ? mac : null, publicKey, sealingKey, addresses, parts },
  };
}

/**
 * The signature or pair MAC (over the exact header string and sealed body), then decryption with the header as
 * associated data. A request with a MAC needs `macKey`, the pair key from its sender's bound sealing key.
 */
export function openInspected(identity: Identity, inspected: InspectedEnvelope, replyKey?: Buffer, macKey?: Buffer): OpenedEnvelope {
  const { header, sig, mac, publicKey, sealingKey, addresses, parts } = inspected.signed;
  // Only a reply comes with neither (inspectEnvelope): opening it under the reply key authenticates it.
  const authentic =
    mac !== null
      ? macKey !== undefined && pairMacMatches(macKey, signedBytes(header, parts), mac)
      : sig === null
        ? replyKey !== undefined
        : verify(publicKey, signedBytes(header, parts), Buffer.from(sig, 'base64url'));
  if (!authentic) throw new EnvelopeError('bad_signature', 'signature does not verify');
  let payload: unknown;
  let nextKey: Buffer | null = null;
  try {
    if (replyKey !== undefined) {
      payload = JSON.parse(openReply(replyKey, parts, header).toString('utf8'));
    } else {
      const opened = identity.openSession(parts as Sealed, header);
      payload = JSON.parse(opened.plaintext.toString('utf8'));
      nextKey = opened.replyKey;
    }
  } catch {
    throw new EnvelopeError('undecryptable', 'body cannot be opened');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return malformed('payload');
  return {
    header: inspected.header,
    sender: { pubkeyHash: inspected.claimedSender, publicKey, sealingKey, addresses },
    payload: payload as Record<string, unknown>,
    replyKey: nextKey,
  };
}

/**
 * Checks an envelope and opens its body: shape, recipient, clock window, signature (over the exact header
 * string and sealed body), then decryption with the header as associated data. Replay is the caller's
 * check (it needs storage).
 */
export function openEnvelope(identity: Identity, raw: unknown, nowMs: number, replyKey?: Buffer): OpenedEnvelope {
  return openInspected(identity, inspectEnvelope(identity, raw, nowMs, replyKey !== undefined), replyKey);
}

// ---- hello: a node's signed self-description, fetched before the first sealed message to a new address

export interface WireHello {
  hello: string;
  sig: string;
}

interface HelloBody {
  v: 1;
  pubkey: string;
  sealing_key: string;
  addresses: NodeAddresses;
  version: string;
  ts: number;
  /** Lower-case hex SHA-256 of the DER of the HTTPS certificate the node serves now; null without HTTPS. */
  tls_fingerprint: string | null;
}

/** A verified hello. */
export interface OpenedHello {
  pubkeyHash: string;
  publicKey: Buffer;
  sealingKey: Buffer;
  addresses: NodeAddresses;
  version: string;
  /** When it was signed (Unix seconds), or null when the field is missing. */
  ts: number | null;
  /** The HTTPS certificate fingerprint the node vouches for; null when absent (older nodes) or not 64 hex. */
  tlsFingerprint: string | null;
}

const FINGERPRINT = /^[0-9a-f]{64}$/;

export function buildHello(identity: Identity, addresses: NodeAddresses, version: string, nowMs: number, tlsFingerprint: string | null = null): WireHello {
  const body: HelloBody = {
    v: 1,
    pubkey: b64u(identity.publicKey),
    sealing_key: b64u(identity.sealingPublicKey),
    addresses,
    version,
    ts: Math.floor(nowMs / 1000),
    tls_fingerprint: tlsFingerprint,
  };
  const hello = JSON.stringify(body);
  return { hello, sig: b64u(identity.sign(Buffer.from(`${HELLO_DOMAIN}\n${hello}`))) };
}

export function openHello(raw: unknown): OpenedHello {
  if (typeof raw !== 'object' || raw === null) throw new EnvelopeError('malformed', 'hello is not an object');
  const { hello, sig } = raw as Record<string, unknown>;
  if (!isStr(hello) || !isStr(sig)) throw new EnvelopeError('malformed', 'hello fields missing');
  let body: HelloBody;
  try {
    body = JSON.parse(hello) as HelloBody;
  } catch {
    throw new EnvelopeError('malformed', 'hello is not JSON');
  }
  const publicKey = decodeKey(body.pubkey);
  const sealingKey = decodeKey(body.sealing_key);
  const addresses = parseAddresses(body.addresses);
  if (!publicKey || !sealingKey || !addresses) throw new EnvelopeError('malformed', 'hello keys');
  if (!verify(publicKey, Buffer.from(`${HELLO_DOMAIN}\n${hello}`), Buffer.from(sig, 'base64url'))) {
    throw new EnvelopeError('bad_signature', 'hello signature does not verify');
  }
  return {
    pubkeyHash: pubkeyHash(publicKey),
    publicKey,
    sealingKey,
    addresses,
    version: isStr(body.version) ? body.version : '',
    ts: typeof body.ts === 'number' && Number.isInteger(body.ts) ? body.ts : null,
    tlsFingerprint: isStr(body.tls_fingerprint) && FINGERPRINT.test(body.tls_fingerprint) ? body.tls_fingerprint : null,
  };
}
