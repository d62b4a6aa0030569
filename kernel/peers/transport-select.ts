/**
 * Choosing the transport toward a peer and falling back when Tor fails.
 *
 * The rule:
 *   1. First attempt: the preferred mode (`defaultTransportMode`, or the peer's own preference) when the peer has
 *      an address of that kind; otherwise the first kind the peer has in the order tor > https > http.
 *   2. Fallback happens only after a Tor failure (including `tor_cooldown` and `tor_unavailable`), and only when
 *      `torFallback` (torFailureTransportFallback) is on: then https if the peer has it, then http if the peer
 *      has it and `torFallbackRequireEncrypted` is off. The same request body is re-sent unchanged.
 *   3. An https or http failure never falls back: https never downgrades to http, and neither is retried over
 *      Tor (its much longer timeout is the caller's call, via the mode). The last TransportError is thrown.
 *   4. `too_large` and `tls_pin_mismatch` end the attempt at once: the peer did answer (or is not who we
 *      pinned), so another path would not help. (The client may then re-pin and ask once more: repin.ts.)
 */
import { TorHealth, type TorHealthSettings } from './tor-health.js';
import { HttpTransport } from './transport-http.js';
import { TorTransport, type SocksEndpoint } from './transport-tor.js';
import { TransportError, normalizeAddress, type Transport, type TransportKind, type TransportRequest, type TransportResponse } from './transport.js';

export const TRANSPORT_PREFERENCE: readonly TransportKind[] = ['tor', 'https', 'http'];

export interface PeerAddresses {
  http?: string | null;
  https?: string | null;
  tor?: string | null;
}

export interface TransportSet {
  /** Handles both http:// and https:// addresses (HttpTransport). */
  http: Transport;
  /** TorTransport. */
  tor: Transport;
}

export interface SendOptions {
  /** The node's transports (createPeerTransports with config.torSocks and the settings getter). */
  transports: TransportSet;
  /** Preferred kind (defaultTransportMode). */
  mode: TransportKind;
  /** torFailureTransportFallback. */
  torFallback: boolean;
  /** torFallbackRequireEncrypted. */
  torFallbackRequireEncrypted: boolean;
  timeouts: { httpMs: number; torMs: number };
  /** The fingerprint pinned for an https address, or null (first use). */
  pins: (address: string) => string | null;
  /** Told about each failed attempt before the next one (for logs and metrics). */
  onAttemptFailed?: (kind: TransportKind, address: string, error: TransportError) => void;
}

export interface SendResult {
  response: TransportResponse;
  usedAddress: string;
  kind: TransportKind;
}

export type PeerRequest = Omit<TransportRequest, 'address' | 'timeoutMs' | 'pin'>;

/** Peer addresses normalized per kind; an address of the wrong kind or invalid is dropped. */
function usable(addresses: PeerAddresses): Partial<Record<TransportKind, string>> {
  const out: Partial<Record<TransportKind, string>> = {};
  for (const kind of TRANSPORT_PREFERENCE) {
    const raw = addresses[kind];
    if (!raw) continue;
    const normalized = normalizeAddress(raw);
    if (!normalized) continue;
    const actual: TransportKind = normalized.startsWith('https://') ? 'https' : normalized.startsWith('http://') ? 'http' : 'tor';
    if (actual === kind) out[kind] = normalized;
  }
  return out;
}

/** The kinds tried, in order, for these addresses and options (rule above). Exported for tests and status pages. */
export function attemptPlan(addresses: PeerAddresses, options: Pick<SendOptions, 'mode' | 'torFallback' | 'torFallbackRequireEncrypted'>): Array<{ kind: TransportKind; address: string }> {
  const have = usable(addresses);
  const first: TransportKind | undefined = have[options.mode] ? options.mode : TRANSPORT_PREFERENCE.find((k) => have[k]);
  if (!first) return [];
  const plan: Array<{ kind: TransportKind; address: string }> = [{ kind: first, address: have[first]! }];
  if (first === 'tor' && options.torFallback) {
    if (have.https) plan.push({ kind: 'https', address: have.https });
    if (have.http && !options.torFallbackRequireEncrypted) plan.push({ kind: 'http', address: have.http });
  }
  return plan;
}

const FINAL_CODES = new Set(['too_large', 'tls_pin_mismatch']);

/** Sends one request to a peer by the rule above. Throws the last TransportError when every allowed path failed. */
export async function sendWithFallback(addresses: PeerAddresses, request: PeerRequest, options: SendOptions): Promise<SendResult> {
  const plan = attemptPlan(addresses, options);
  if (plan.length === 0) throw new TransportError('bad_address', 'the peer has no usable address');
  let last: TransportError | null = null;
  for (const { kind, address } of plan) {
    const transport = kind === 'tor' ? options.transports.tor : options.transports.http;
    const attempt: TransportRequest = {
      ...request,
      address,
      timeoutMs: kind === 'tor' ? options.timeouts.torMs : options.timeouts.httpMs,
      pin: kind === 'https' ? options.pins(address) : null,
    };
    try {
      const response = await transport.send(attempt);
      return { response, usedAddress: address, kind };
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      last = err;
      if (FINAL_CODES.has(err.code)) throw err;
      options.onAttemptFailed?.(kind, address, err);
    }
  }
  throw last!;
}

/** Reads the transport settings through a getter (the settings registry's `get`). */
export function transportSettings(get: (key: string) => unknown): {
  mode: TransportKind;
  torFallback: boolean;
  torFallbackRequireEncrypted: boolean;
  timeouts: { httpMs: number; torMs: number };
  torHealth: TorHealthSettings;
} {
  const mode = String(get('defaultTransportMode'));
  return {
    mode: mode === 'http' || mode === 'https' ? mode : 'tor',
    torFallback: get('torFailureTransportFallback') !== false,
    torFallbackRequireEncrypted: get('torFallbackRequireEncrypted') !== false,
    timeouts: {
      httpMs: Number(get('httpTransportTimeoutSeconds') ?? 15) * 1000,
      torMs: Number(get('torTransportTimeoutSeconds') ?? 45) * 1000,
    },
    torHealth: {
      maxFailures: Number(get('torCircuitMaxFailures') ?? 3),
      cooldownSeconds: Number(get('torCircuitCooldownSeconds') ?? 300),
    },
  };
}

/** The node's transports: one pooled HTTP(S) transport and one Tor transport with its circuit health. */
export interface PeerTransports extends TransportSet {
  readonly health: TorHealth;
  close(): void;
}

export function createPeerTransports(options: {
  /** config.torSocks (or a getter). */
  torSocks: SocksEndpoint | (() => SocksEndpoint);
  /** The settings registry's `get`, read on every use. */
  settings: (key: string) => unknown;
  now?: () => number;
  /** Carries http and https exchanges instead of sockets (an in-memory network: transport-memory.ts). */
  http?: Transport;
}): PeerTransports {
  const health = new TorHealth(() => transportSettings(options.settings).torHealth, options.now);
  const http = options.http ?? new HttpTransport();
  const tor = new TorTransport({ socks: options.torSocks, health });
  return {
    http,
    tor,
    health,
    close: () => {
      http.close();
      tor.close();
    },
  };
}
