/**
 * Re-pinning an HTTPS address whose certificate changed.
 *
 * A node makes a new self-signed certificate when its hostname setting changes, and a node restored from its
 * seed into a new data directory has a new one at the same address; every peer that pinned the old one then
 * sees `tls_pin_mismatch`. The pin is replaced only when the node we expect at that address vouches for the
 * certificate the connection presented:
 *
 *   1. GET /peer/v1/hello at the same https address, without the pin check, on a connection of its own
 *      (a GET carries no body: nothing is disclosed to whoever answers);
 *   2. the hello's signature verifies, its key hash is the one the caller expected, and it was signed within the
 *      clock window of envelopes (an old hello cannot be replayed);
 *   3. its signed `tls_fingerprint` equals the fingerprint of the certificate that connection presented.
 *
 * TLS proves that the server holds the private key of the certificate it presents, and the hello signature
 * proves that the expected node names that certificate as its own: only that node (or one holding both its
 * identity key and its TLS key) can pass. Anything else leaves the pin and the mismatch as they were.
 */
import { EnvelopeError, PEER_WINDOW_SECONDS, openHello } from './envelope.js';
const refuse = (reason) => ({ ok: false, reason });
/**
 * Decides whether `address` may be re-pinned for the node `expectedPubkeyHash`: fetches its hello through
 * `fetchHello` and checks it (module comment). Never throws; a failed fetch is a refusal too.
 */
export async function checkRepin(address, expectedPubkeyHash, fetchHello, nowMs = Date.now()) {
    let answer;
    try {
        answer = await fetchHello(address);
    }
    catch (err) {
        return refuse(`hello not fetched: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (answer.status !== 200)
        return refuse(`hello answered HTTP ${answer.status}`);
    const presented = answer.certFingerprint?.replace(/:/g, '').toLowerCase() ?? null;
    if (!presented)
        return refuse('the connection presented no certificate');
    let hello;
    try {
        hello = openHello(JSON.parse(answer.body));
    }
    catch (err) {
        return refuse(`invalid hello: ${err instanceof EnvelopeError ? err.message : 'not a hello'}`);
    }
    if (hello.pubkeyHash !== expectedPubkeyHash)
        return refuse(`the hello is signed by another node (${hello.pubkeyHash})`);
    if (hello.ts === null || Math.abs(nowMs / 1000 - hello.ts) > PEER_WINDOW_SECONDS)
        return refuse('the hello is outside the clock window');
    if (!hello.tlsFingerprint)
        return refuse('the hello names no TLS certificate');
    if (hello.tlsFingerprint !== presented) {
        return refuse(`the hello names certificate ${hello.tlsFingerprint}, the connection presented ${presented}`);
    }
    return { ok: true, fingerprint: presented, hello };
}
//# sourceMappingURL=repin.js.map