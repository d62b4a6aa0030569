/**
 * Transports toward peers: the contract shared by HTTP, HTTPS and Tor, and the address rules.
 *
 * A peer is reachable at up to three base addresses:
 *   http    `http://host[:port]`
 *   https   `https://host[:port]`  (self-signed certificate, pinned per peer on first use)
 *   tor     `<56 base32 chars>.onion` (v3 only), reached through the SOCKS5 proxy
 *
 * Transports move one request and its response; they know nothing about envelopes. Every failure is a
 * TransportError with a code the caller can act on (retry later, fall back to another transport, repin).
 */
import { createHash } from 'node:crypto';

export type TransportKind = 'http' | 'https' | 'tor';

export interface TransportRequest {
  /** Base address: `http://h:p`, `https://h:p` or `<56 base32>.onion` (an `http://` prefix and a port are accepted). */
  address: string;
  /** Absolute path, e.g. `/peer/v1/message`. */
  path: string;
  method: 'GET' | 'POST';
  /** Sent as `application/json`. */
  body?: string;
  /** Whole exchange: connect (and SOCKS, TLS handshake), send, read the full response. */
  timeoutMs: number;
  /** https: expected SHA-256 certificate fingerprint (hex) pinned for this address, or null on first use. */
  pin?: string | null;
  /**
   * https: over a connection of its own, opened for this request and closed after it (never pooled), so that
   * `certFingerprint` is what a brand-new handshake presented. For the unpinned hello of a re-pin (client.ts).
   */
  fresh?: boolean;
  /**
   * http and https: the POST may travel as a frame on a kept stream to the address (frames.ts), when its peer has
   * streams; over HTTP otherwise. Tor ignores it.
   */
  stream?: boolean;
}

export interface TransportResponse {
  status: number;
  body: string;
  /** https only: the fingerprint seen (so the caller can pin it on first use, or check it against a hello). */
  certFingerprint?: string;
}

export type TransportErrorCode =
  /** The exchange did not finish within timeoutMs. */
  | 'timeout'
  /** Connection refused or reset, host unknown, TLS failure, SOCKS proxy could not reach the onion... */
  | 'unreachable'
  /** The https peer presented a certificate other than the pinned one; nothing was sent to it. */
  | 'tls_pin_mismatch'
  /** The onion failed too often recently; not tried (see tor-health.ts). */
  | 'tor_cooldown'
  /** The local SOCKS5 proxy (Tor) is not reachable. */
  | 'tor_unavailable'
  /** The address is not a valid http, https or v3 onion address (or not one this transport handles). */
  | 'bad_address'
  /** The response exceeded the size cap. */
  | 'too_large';

export class TransportError extends Error {
  constructor(
    readonly code: TransportErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** Responses larger than this are refused (same ceiling as the reference's request bodies). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** What every transport offers. */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Drops pooled connections. */
  close(): void;
}

const ONION_V3 = /^([a-z2-7]{56})\.onion$/;
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ONION_CHECKSUM_PREFIX = Buffer.from('.onion checksum', 'ascii');

function base32Decode(text: string): Buffer {
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    buffer = (buffer << 5) | BASE32_ALPHABET.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >>> bits) & 0xff);
    }
    buffer &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

/** A v3 onion name: 32-byte key, 2-byte checksum, version 3 (rend-spec-v3 "Encoding onion addresses"). */
function isValidOnionV3(label: string): boolean {
  const bytes = base32Decode(label);
  if (bytes.length !== 35 || bytes[34] !== 0x03) return false;
  const key = bytes.subarray(0, 32);
  const checksum = createHash('sha3-256').update(ONION_CHECKSUM_PREFIX).update(key).update(bytes.subarray(34)).digest();
  return checksum[0] === bytes[32] && checksum[1] === bytes[33];
}

/**
 * Canonical form of a peer address, or null when it is not one:
 *   http(s)   `http://host[:port]` / `https://host[:port]`: lower-case host, default port dropped, no trailing
 *             slash; no credentials, path (other than `/`), query or fragment.
 *   onion     bare lower-case `<56 base32>.onion` (any `http://` or `https://` prefix and a trailing `/` stripped);
 *             v3 only, checksum verified. A port other than 80 is kept: `<onion>.onion:8080`.
 * Anything without a scheme that is not an onion (e.g. `host:8080`) is refused rather than guessed.
 */
export function normalizeAddress(address: string): string | null {
  if (typeof address !== 'string') return null;
  const trimmed = address.trim();
  if (trimmed === '' || trimmed.length > 2048) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `onion://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  // `new URL('http://host?')` drops the empty query; refuse those stray characters too.
  if (/[?#]/.test(trimmed)) return null;
  const host = url.hostname.toLowerCase();
  if (host.endsWith('.onion')) {
    if (!['onion:', 'http:', 'https:'].includes(url.protocol)) return null;
    const match = ONION_V3.exec(host);
    if (!match || !isValidOnionV3(match[1]!)) return null;
    // For http:// and https:// URLs a default port was already dropped; for the bare form keep any port but 80.
    const port = url.port === '80' ? '' : url.port;
    return port ? `${host}:${port}` : host;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (host === '') return null;
  return `${url.protocol}//${url.host.toLowerCase()}`;
}

/** Which transport reaches an address: `*.onion` → tor, else by scheme; null when the address is invalid. */
export function kindOfAddress(address: string): TransportKind | null {
  const normalized = normalizeAddress(address);
  if (normalized === null) return null;
  if (normalized.startsWith('https://')) return 'https';
  if (normalized.startsWith('http://')) return 'http';
  return 'tor';
}

/** `{ host, port }` of a normalized onion address (port 80 unless given). */
export function onionTarget(address: string): { host: string; port: number } | null {
  const normalized = normalizeAddress(address);
  if (normalized === null || normalized.includes('://')) return null;
  const [host, port] = normalized.split(':');
  return { host: host!, port: port ? Number(port) : 80 };
}
