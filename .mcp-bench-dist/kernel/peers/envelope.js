import { randomBytes } from 'node:crypto';
import { pubkeyHash } from '../crypto/derive.js';
import { openReply, sealReply } from '../crypto/seal.js';
import { verify } from '../crypto/sign.js';
/** How long a message stays acceptable after (and before) its timestamp. */
export const PEER_WINDOW_SECONDS = 300;
const SIG_DOMAIN = 'wn-peer-v1';
const HELLO_DOMAIN = 'wn-hello-v1';
export class EnvelopeError extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
        this.name = 'EnvelopeError';
    }
}
const b64u = (b) => Buffer.from(b).toString('base64url');
function signedBytes(header, body) {
    return Buffer.from(`${SIG_DOMAIN}\n${header}\n${body.epk ?? ''}.${body.iv}.${body.ct}`, 'utf8');
}
export const newNonce = () => randomBytes(16).toString('hex');
function headerFor(identity, addresses, to, ids, nowMs) {
    const nonce = newNonce();
    const headerObj = {
        v: 1,
        from: { pubkey: b64u(identity.publicKey), sealing_key: b64u(identity.sealingPublicKey), addresses },
        to,
        ts: Math.floor(nowMs / 1000),
        nonce,
        mid: ids.mid,
        ...(ids.repeatable ? { rep: true } : {}),
        ...(ids.re ? { re: ids.re } : {}),
    };
    return { header: JSON.stringify(headerObj), nonce };
}
/** A request: sealed to the recipient's key (in the sender's current session with it). Keep `replyKey` to open the answer. */
export function buildEnvelope(identity, addresses, recipient, payload, ids, nowMs, sessions) {
    const { header, nonce } = headerFor(identity, addresses, recipient.pubkeyHash, ids, nowMs);
    const { sealed: body, replyKey } = sessions.seal(recipient.sealingKey, JSON.stringify(payload), header, nowMs);
    return { wire: { header, body, sig: b64u(identity.sign(signedBytes(header, body))) }, nonce, replyKey };
}
/** The answer to a request, sealed under the key both sides derived from it. */
export function buildReplyEnvelope(identity, addresses, to, replyKey, payload, ids, nowMs) {
    const { header } = headerFor(identity, addresses, to, ids, nowMs);
    const body = sealReply(replyKey, JSON.stringify(payload), header);
    return { header, body, sig: b64u(identity.sign(signedBytes(header, body))) };
}
const isStr = (v) => typeof v === 'string';
function decodeKey(text) {
    if (!isStr(text) || !/^[A-Za-z0-9_-]{43}$/.test(text))
        return null;
    const raw = Buffer.from(text, 'base64url');
    return raw.length === 32 ? raw : null;
}
function parseAddresses(v) {
    if (typeof v !== 'object' || v === null)
        return null;
    const a = v;
    const pick = (k) => (isStr(a[k]) && a[k].length <= 300 ? a[k] : null);
    return { http: pick('http'), https: pick('https'), tor: pick('tor') };
}
const malformed = (what) => {
    throw new EnvelopeError('malformed', `malformed envelope: ${what}`);
};
/**
 * The checks that cost no cryptography: shape, recipient, clock window. What it returns lets the caller refuse a
 * replay before paying for the signature and the decryption.
 */
export function inspectEnvelope(identity, raw, nowMs, isReply = false) {
    if (typeof raw !== 'object' || raw === null)
        return malformed('not an object');
    const { header, body, sig } = raw;
    if (!isStr(header) || header.length > 4096 || !isStr(sig))
        return malformed('header or signature missing');
    if (typeof body !== 'object' || body === null)
        return malformed('body missing');
    const sealed = body;
    if ((isReply ? sealed.epk !== undefined : !isStr(sealed.epk)) || !isStr(sealed.iv) || !isStr(sealed.ct))
        return malformed('body fields missing');
    let h;
    try {
        h = JSON.parse(header);
    }
    catch {
        return malformed('header is not JSON');
    }
    const publicKey = decodeKey(h?.from?.pubkey);
    const sealingKey = decodeKey(h?.from?.sealing_key);
    const addresses = parseAddresses(h?.from?.addresses);
    if (h.v !== 1 || !publicKey || !sealingKey || !addresses)
        return malformed('sender keys');
    if (!isStr(h.to) || !isStr(h.nonce) || !/^[0-9a-f]{32}$/.test(h.nonce) || !isStr(h.mid) || h.mid.length > 128) {
        return malformed('ids');
    }
    if (typeof h.ts !== 'number' || !Number.isInteger(h.ts))
        return malformed('timestamp');
    if (h.to !== identity.pubkeyHash)
        throw new EnvelopeError('wrong_recipient', 'envelope addressed to another node');
    if (Math.abs(nowMs / 1000 - h.ts) > PEER_WINDOW_SECONDS)
        throw new EnvelopeError('expired', 'envelope outside the 300-second window');
    const parts = { ...(isReply ? {} : { epk: sealed.epk }), iv: sealed.iv, ct: sealed.ct };
    return { header: h, claimedSender: pubkeyHash(publicKey), signed: { header, sig, publicKey, sealingKey, addresses, parts } };
}
/** The signature (over the exact header string and sealed body), then decryption with the header as associated data. */
export function openInspected(identity, inspected, replyKey) {
    const { header, sig, publicKey, sealingKey, addresses, parts } = inspected.signed;
    if (!verify(publicKey, signedBytes(header, parts), Buffer.from(sig, 'base64url')))
        throw new EnvelopeError('bad_signature', 'signature does not verify');
    let payload;
    let nextKey = null;
    try {
        if (replyKey !== undefined) {
            payload = JSON.parse(openReply(replyKey, parts, header).toString('utf8'));
        }
        else {
            const opened = identity.openSession(parts, header);
            payload = JSON.parse(opened.plaintext.toString('utf8'));
            nextKey = opened.replyKey;
        }
    }
    catch {
        throw new EnvelopeError('undecryptable', 'body cannot be opened');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
        return malformed('payload');
    return {
        header: inspected.header,
        sender: { pubkeyHash: inspected.claimedSender, publicKey, sealingKey, addresses },
        payload: payload,
        replyKey: nextKey,
    };
}
/**
 * Checks an envelope and opens its body: shape, recipient, clock window, signature (over the exact header
 * string and sealed body), then decryption with the header as associated data. Replay is the caller's
 * check (it needs storage).
 */
export function openEnvelope(identity, raw, nowMs, replyKey) {
    return openInspected(identity, inspectEnvelope(identity, raw, nowMs, replyKey !== undefined), replyKey);
}
const FINGERPRINT = /^[0-9a-f]{64}$/;
export function buildHello(identity, addresses, version, nowMs, tlsFingerprint = null) {
    const body = {
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
export function openHello(raw) {
    if (typeof raw !== 'object' || raw === null)
        throw new EnvelopeError('malformed', 'hello is not an object');
    const { hello, sig } = raw;
    if (!isStr(hello) || !isStr(sig))
        throw new EnvelopeError('malformed', 'hello fields missing');
    let body;
    try {
        body = JSON.parse(hello);
    }
    catch {
        throw new EnvelopeError('malformed', 'hello is not JSON');
    }
    const publicKey = decodeKey(body.pubkey);
    const sealingKey = decodeKey(body.sealing_key);
    const addresses = parseAddresses(body.addresses);
    if (!publicKey || !sealingKey || !addresses)
        throw new EnvelopeError('malformed', 'hello keys');
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
//# sourceMappingURL=envelope.js.map