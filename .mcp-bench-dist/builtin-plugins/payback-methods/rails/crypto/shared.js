/** Pieces shared by the crypto rails: the address field, its mask, and native-versus-token currency rules. */
import { stringField } from '../common/fields.js';
import { maskAddress } from '../common/mask.js';
export const addressField = (label = 'Address', maxLength = 128) => stringField('address', label, { required: true, sensitive: true, maxLength });
export function addressSummary(label, address) {
    return `${label} ${maskAddress(address)}`;
}
//# sourceMappingURL=shared.js.map