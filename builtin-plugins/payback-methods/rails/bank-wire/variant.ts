/** What each bank_wire sub-rail contributes: its own fields, its currency rule, and how to read them. */

import type { RailField, RailFields } from '../../../../sdk/payback-rail.js';
import type { FieldReader } from '../common/form.js';

export interface BankVariant {
  label: string;
  fields: readonly RailField[];
  currencyRule: string;
  read(reader: FieldReader, currency: string): void;
  /** The value whose tail the masked summary shows. */
  maskedValue(fields: RailFields): unknown;
}
