/**
 * Solana account addresses: base58 of a 32-byte key. There is no checksum, so a typo that stays inside the
 * alphabet and length cannot be caught; the length check still stops truncated or padded pastes.
 */
import { base58 } from '@scure/base';
import { fail, pass } from '../common/check.js';
import { isBase58 } from './base58check.js';
export function checkSolanaAddress(input) {
    if (!isBase58(input))
        return fail('invalid_format', 'contains characters outside the base58 alphabet');
    if (input.length < 32 || input.length > 44)
        return fail('invalid_length', 'a Solana address has 32 to 44 characters');
    let bytes;
    try {
        bytes = base58.decode(input);
    }
    catch {
        return fail('invalid_format', 'is not valid base58');
    }
    if (bytes.length !== 32)
        return fail('invalid_length', 'does not decode to a 32-byte key');
    return pass(input);
}
//# sourceMappingURL=solana-address.js.map