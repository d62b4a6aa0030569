/**
 * Provider tokens at rest: AES-256-GCM under a key the node seed derives for this plugin
 * (`ctx.identity.storageKey`), with the provider id as associated data, so a ciphertext copied to another provider's
 * row does not open. Customer tokens are never stored at all: only their SHA-256 (tokens.ts).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
const VERSION = 'v1';
const aad = (providerId) => Buffer.from(`mcp-passthrough:provider-token:${providerId}`, 'utf8');
export class TokenCipher {
    key;
    constructor(key) {
        this.key = key;
        if (key.length !== 32)
            throw new Error('the provider token key must be 32 bytes');
    }
    seal(providerId, token) {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', this.key, iv);
        cipher.setAAD(aad(providerId));
        const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
        return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    }
    /** The token, or null when the blob does not open (another seed after a restore, tampering). */
    open(providerId, blob) {
        const [version, data] = blob.split('.');
        if (version !== VERSION || !data)
            return null;
        const raw = Buffer.from(data, 'base64url');
        if (raw.length < 28)
            return null;
        try {
            const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
            decipher.setAAD(aad(providerId));
            decipher.setAuthTag(raw.subarray(12, 28));
            return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
        }
        catch {
            return null;
        }
    }
}
//# sourceMappingURL=secrets.js.map