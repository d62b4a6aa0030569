import { randomBytes } from 'node:crypto';
import { signRequest } from '../auth/verifier.js';
/**
 * A REST client that signs every request as Document 1 says: HMAC-SHA256 over method, path, timestamp,
 * nonce and the exact body bytes. node-cli and the tests both use it.
 */
export class SignedClient {
    credentials;
    constructor(credentials) {
        this.credentials = credentials;
    }
    async request(method, path, options = {}) {
        const res = await this.open(method, path, options);
        const text = await res.text();
        let parsed = text;
        try {
            parsed = text ? JSON.parse(text) : null;
        }
        catch {
            // not JSON (exports, plugin raw replies): keep the text
        }
        return { status: res.status, headers: res.headers, body: parsed };
    }
    /** Sends the signed request and resolves at the answer's headers, its body not read yet (streamed downloads). */
    async open(method, path, options = {}) {
        const url = new URL(path, this.credentials.baseUrl);
        for (const [k, v] of Object.entries(options.query ?? {}))
            if (v !== undefined)
                url.searchParams.set(k, String(v));
        const body = options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
        const nonce = options.nonce ?? randomBytes(16).toString('hex');
        const signature = signRequest(this.credentials.secret, method, url.pathname, timestamp, nonce, body);
        return fetch(url, {
            method,
            headers: {
                'X-API-Key': this.credentials.keyId,
                'X-API-Timestamp': timestamp,
                'X-API-Nonce': nonce,
                'X-API-Signature': signature,
                ...(body ? { 'Content-Type': 'application/json' } : {}),
                ...options.headers,
            },
            ...(body ? { body } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
        });
    }
    get(path, options) {
        return this.request('GET', path, options);
    }
    post(path, body, options) {
        return this.request('POST', path, { ...options, body });
    }
    put(path, body, options) {
        return this.request('PUT', path, { ...options, body });
    }
    delete(path, options) {
        return this.request('DELETE', path, options);
    }
}
//# sourceMappingURL=rest-client.js.map