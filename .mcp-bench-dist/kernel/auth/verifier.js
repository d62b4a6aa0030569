import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';
export const SIGNATURE_WINDOW_SECONDS = 300;
/** The string to sign of Document 1: method, path, timestamp, nonce and body joined by LF. */
export function stringToSign(method, path, timestamp, nonce, body) {
    const head = Buffer.from(`${method.toUpperCase()}\n${path}\n${timestamp}\n${nonce}\n`);
    return Buffer.concat([head, typeof body === 'string' ? Buffer.from(body) : body]);
}
export function signRequest(secret, method, path, timestamp, nonce, body) {
    return createHmac('sha256', secret).update(stringToSign(method, path, timestamp, nonce, body)).digest('hex');
}
const fail = (code, message) => {
    throw new ApiError(code, 401, message);
};
/**
 * Checks a signed REST request. Order: headers present, nonce shape, timestamp, key state, signature, then
 * the nonce is spent and the rate limit counted — only for requests that proved the secret, so nobody can
 * burn another key's nonces or budget with unsigned noise or replays.
 */
export class RequestVerifier {
    keys;
    nonces;
    limiter;
    rateLimitEnabled;
    constructor(keys, nonces, limiter, rateLimitEnabled) {
        this.keys = keys;
        this.nonces = nonces;
        this.limiter = limiter;
        this.rateLimitEnabled = rateLimitEnabled;
    }
    verify(req, nowMs) {
        return this.verifyBody(this.precheck(req, nowMs), req, nowMs);
    }
    /**
     * The checks that need no body (every refusal up to the key's state), so a request that cannot pass is
     * refused before the node reads, buffers and hashes what may be megabytes of it.
     */
    precheck(req, nowMs) {
        const keyId = req.header('x-api-key');
        const timestamp = req.header('x-api-timestamp');
        const signature = req.header('x-api-signature');
        const nonce = req.header('x-api-nonce');
        if (!keyId)
            fail('auth_missing_key', 'Missing X-API-Key header');
        if (!timestamp)
            fail('auth_missing_timestamp', 'Missing X-API-Timestamp header');
        if (!signature)
            fail('auth_missing_signature', 'Missing X-API-Signature header');
        if (!nonce)
            fail('auth_missing_nonce', 'Missing X-API-Nonce header');
        if (nonce.length < 8 || nonce.length > 64)
            fail('auth_invalid_nonce', 'X-API-Nonce must be 8-64 characters');
        if (!/^\d{1,12}$/.test(timestamp))
            fail('auth_invalid_timestamp', 'X-API-Timestamp must be Unix time in seconds');
        if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) {
            fail('auth_expired_timestamp', 'Request timestamp is outside the 300-second window');
        }
        const key = this.keys.lookup(keyId);
        if (!key)
            return fail('auth_invalid_key', 'Invalid or inactive API key');
        if (!key.record.enabled)
            fail('auth_key_disabled', 'Invalid or inactive API key');
        if (key.expiresAtMs !== null && key.expiresAtMs <= nowMs)
            fail('auth_key_expired', 'Invalid or inactive API key');
        return { keyId: keyId, timestamp: timestamp, nonce: nonce, signature: signature, key };
    }
    /** The signature over the body, then the nonce is spent and the rate limit counted. */
    verifyBody(checked, req, nowMs) {
        const { keyId, timestamp, nonce, signature } = checked;
        const expected = createHmac('sha256', checked.key.secret)
            .update(stringToSign(req.method, req.path, timestamp, nonce, req.rawBody))
            .digest();
        const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : null;
        if (!given || !timingSafeEqual(expected, given))
            fail('auth_invalid_signature', 'Signature verification failed');
        // The nonce is spent before the rate limit is counted: a replayed (captured) request must be refused as a
        // replay and must not eat the key's budget, or an eavesdropper could lock the key out by replaying.
        if (!this.nonces.use(keyId, nonce, Number(timestamp)))
            fail('auth_replay_detected', 'Nonce already used');
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
//# sourceMappingURL=verifier.js.map