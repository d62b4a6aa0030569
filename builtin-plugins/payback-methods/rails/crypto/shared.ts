/** Pieces shared by the crypto rails: the address field, its mask, and native-versus-token currency rules. */

import type { RailField } from '../../../../sdk/payback-rail.js';
import { stringField } from '../common/fields.js';
import { maskAddress } from '../common/mask.js';

export const addressField = (label = 'Address', maxLength = 128): RailField =>
  stringField('address', label, { required: true, sensitive: true, maxLength });

export function addressSummary(label: string, address: unknown): string {
  return `${label} ${maskAddress(address)}`;
}
