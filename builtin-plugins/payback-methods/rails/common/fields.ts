/** Builders for catalog field descriptions, plus the optional text fields several rails share. */

import type { RailField } from '../../../../sdk/payback-rail.js';
import type { FieldReader } from './form.js';

export interface FieldSpec {
  required?: boolean;
  sensitive?: boolean;
  maxLength?: number;
}

export function stringField(name: string, label: string, spec: FieldSpec = {}): RailField {
  const field: RailField = { name, label, type: 'string', required: spec.required ?? false, sensitive: spec.sensitive ?? false };
  if (spec.maxLength !== undefined) field.max_length = spec.maxLength;
  return field;
}

export function enumField(name: string, label: string, options: readonly string[], required = true): RailField {
  return { name, label, type: 'enum', required, options, sensitive: false };
}

export function integerField(name: string, label: string, spec: FieldSpec = {}): RailField {
  return { name, label, type: 'integer', required: spec.required ?? false, sensitive: spec.sensitive ?? false };
}

/** Memos travel with the payment and can identify the payee at an exchange, so they are masked too. */
export const MEMO_MAX = 255;
export const NAME_MAX = 70;

export const memoField = (name = 'memo', label = 'Memo', maxLength = MEMO_MAX): RailField =>
  stringField(name, label, { sensitive: true, maxLength });

export const displayNameField = (): RailField => stringField('display_name', 'Display name', { maxLength: NAME_MAX });

export function readMemo(reader: FieldReader, name = 'memo', maxLength = MEMO_MAX): void {
  reader.text(name, { required: false, maxLength });
}

export function readDisplayName(reader: FieldReader): void {
  reader.text('display_name', { required: false, maxLength: NAME_MAX });
}
