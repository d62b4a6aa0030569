import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AuthInfo } from '../../sdk/index.js';
import { ApiError } from '../errors.js';
import type { ApiKeyStore, CachedKey } from './key-store.js';
import type { NonceStore } from './nonces.js';
import type { SlidingWindowLimiter } from './rate-limiter.js';

export const SIGNATURE_WINDOW_SECONDS = 300;

/** What can be checked before the body arrives: the request's headers. */
export interface RequestHeaders {
  header(name: string): string | undefined;
}

export interface SignedRequest extends RequestHeaders {
  method: string;
  /** The URL path as transmitted (percent-encoding kept), without origin or query string. */
  path: string;
  rawBody: Buffer;
}

/** A request whose headers passed: the key it names exists and may be used; the signature is not checked yet. */
export interface PrecheckedRequest {
  readonly keyId: string;
  readonly timestamp: string;
  readonly nonce: string;
  readonly signature: string;
  readonly key: CachedKey;
}

/** The string to sign before the body (the node hashes the two without joining them). */
const signedHead = (method: string, path: string, timestamp: string, nonce: string): string => `${method.toUpperCase()}\n${path}\n${timestamp}\n${nonce}\n`;

/** The string to sign of Document 1: method, path, timestamp, nonce and body joined by LF. */
export function stringToSign(method: string, path: string, timestamp: string, nonce: string, body: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(signedHead(method, path, timestamp, nonce)), typeof body === 'string' ? Buffer.from(body) : body]);
}

export function signRequest(secret: string | Buffer, method: string, path: string, timestamp: string, nonce: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(stringToSign(method, path, timestamp, nonce, body)).digest('hex');
}

const fail = (code: string, message: string): never => {
  throw new ApiError(code, 401, message);
};

/**
 * Checks a signed REST request. Order: headers present, nonce shape, timestamp, key state, signature, then
 * the nonce is spent and the rate limit counted — only for requests that proved the secret, so nobody can
 * burn another key's nonces or budget with unsigned noise or replays.
 */
export class RequestVerifier {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly nonces: NonceStore,
    private readonly limiter: SlidingWindowLimiter,
    private readonly rateLimitEnabled: () => boolean,
  ) {}

  verify(req: SignedRequest, nowMs: number): AuthInfo {
    return this.verifyBody(this.precheck(req, nowMs), req, nowMs);
  }

  /**
   * The checks that need no body (every refusal up to the key's state), so a request that cannot pass is
   * refused before the node reads, buffers and hashes what may be megabytes of it.
   */
  precheck(req: RequestHeaders, nowMs: number): PrecheckedRequest {
    const keyId = req.header('x-api-key');
    const timestamp = req.header('x-api-timestamp');
    const signature = req.header('x-api-signature');
    const nonce = req.header('x-api-nonce');
    if (!keyId) fail('auth_missing_key', 'Missing X-API-Key header');
    if (!timestamp) fail('auth_missing_timestamp', 'Missing X-API-Timestamp header');
    if (!signature) fail('auth_missing_signature', 'Missing X-API-Signature header');
    if (!nonce) fail('auth_missing_nonce', 'Missing X-API-Nonce header');
    if (nonce!.length < 8 || nonce!.length > 64) fail('auth_invalid_nonce', 'X-API-Nonce must be 8-64 characters');
    if (!/^\d{1,12}$/.test(timestamp!)) fail('auth_invalid_timestamp', 'X-API-Timestamp must be Unix time in seconds');
    if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) {
      fail('auth_expired_timestamp', 'Request timestamp is outside the 300-second window');
    }
    const key = this.keys.lookup(keyId!);
    if (!key) return fail('auth_invalid_key', 'Invalid or inactive API key');
    if (!key.record.enabled) fail('auth_key_disabled', 'Invalid or inactive API key');
    if (key.expiresAtMs !== null && key.expiresAtMs <= nowMs) fail('auth_key_expired', 'Invalid or inactive API key');
    return { keyId: keyId!, timestamp: timestamp!, nonce: nonce!, signature: signature!, key };
  }

  /** The signature over the body, then the nonce is spent and the rate limit counted. */
  verifyBody(checked: PrecheckedRequest, req: Omit<SignedRequest, 'header'>, nowMs: number): AuthInfo {
    const { keyId, timestamp, nonce, signature } = checked;
    const expected = createHmac('sha256', checked.key.secret).update(signedHead(req.method, req.path, timestamp, nonce)).update(req.rawBody).digest();
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : null;
    if (!given || !timingSafeEqual(expected, given)) fail('auth_invalid_signature', 'Signature verification failed');
    // The nonce is spent before the rate limit is counted: a replayed (captured) request must be refused as a
    // replay and must not eat the key's budget, or an eavesdropper could lock the key out by replaying.
    if (!this.nonces.use(keyId, nonce, Number(timestamp), nowMs / 1000)) fail('auth_replay_detected', 'Nonce already used');
    if (this.rateLimitEnabled()) {
      const wait = this.limiter.take(keyId, checked.key.record.rate_limit_per_minute, nowMs);
      if (wait > 0) {
        throw new ApiError('rate_limit_exceeded', 429, `Rate limit exceeded. Please try again in ${wait} seconds.`, {
          retry_after: wait,
        });
      }
    }
    this.keys.touch(keyId, nowMs);
    return { keyId, permissions: checked.key.record.permissions };
  }
}
