/** Lightning addresses (LUD-16): `user@domain`, resolved over https; the user part is a-z0-9-_.+ only. */
import { fail, pass } from '../common/check.js';
import { isHostName } from './email.js';
export function checkLightningAddress(input) {
    const address = input.toLowerCase();
    const at = address.lastIndexOf('@');
    const user = address.slice(0, at);
    const domain = address.slice(at + 1);
    if (at <= 0 || !/^[a-z0-9._+-]+$/.test(user) || !isHostName(domain)) {
        return fail('invalid_format', 'a Lightning address is user@domain.tld');
    }
    if (user.length > 64 || address.length > 254)
        return fail('too_long', 'a Lightning address has at most 254 characters');
    return pass(address);
}
//# sourceMappingURL=lightning-address.js.map