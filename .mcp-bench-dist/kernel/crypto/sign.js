/** Ed25519 signatures (pure EdDSA: no pre-hash, so the algorithm argument of Node's API is null). */
import { sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { PublicKeyCache } from './keys.js';
const SIGNATURE_LENGTH = 64;
const verifyKeys = new PublicKeyCache('ed25519');
export function sign(privateKey, data) {
    return nodeSign(null, data, privateKey);
}
/**
 * True only for a valid signature. Anything else, including garbage keys or signatures of the wrong
 * size, is simply false: inputs come straight off the network and a verifier that throws invites a
 * caller to treat "threw" differently from "invalid".
 */
export function verify(publicRaw, data, signature) {
    try {
        if (!(signature instanceof Uint8Array) || signature.length !== SIGNATURE_LENGTH)
            return false;
        if (!(data instanceof Uint8Array))
            return false;
        return nodeVerify(null, data, verifyKeys.get(publicRaw), signature);
    }
    catch {
        return false;
    }
}
//# sourceMappingURL=sign.js.map