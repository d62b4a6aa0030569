/** Table helpers for rail tests: every rejection names the exact field and code that failed. */

import { expect } from 'vitest';
import type { PaybackRail, RailFields } from '../../../sdk/payback-rail.js';

export type Failure = readonly [field: string, code: string];

export function failures(rail: PaybackRail, fields: RailFields, currency: string): Failure[] {
  return rail.validate(fields, currency).map((error) => [error.field, error.code] as const);
}

export function expectValid(rail: PaybackRail, fields: RailFields, currency: string): void {
  expect(rail.validate(fields, currency)).toEqual([]);
}

/** Asserts that validation fails with exactly these field/code pairs and nothing else. */
export function expectFailures(rail: PaybackRail, fields: RailFields, currency: string, ...expected: Failure[]): void {
  const errors = rail.validate(fields, currency);
  expect(errors.map((error) => [error.field, error.code])).toEqual(expected);
  for (const error of errors) expect(error.message.length).toBeGreaterThan(0);
}

/** Replaces the character at `index` (negative counts from the end) to make a one-character near miss. */
export function swapChar(value: string, index: number, replacement: string): string {
  const at = index < 0 ? value.length + index : index;
  if (value.charAt(at) === replacement) throw new Error(`near miss would not change ${value} at ${at}`);
  return value.slice(0, at) + replacement + value.slice(at + 1);
}
