/**
 * The vectors every payback rail must pass, core or third-party: its catalogue describes it consistently, junk
 * input is refused field by field and never throws, unknown fields are refused, masks and precisions stay sane. The
 * core rails' unit test and a sandboxed rail's own test (through the test kit, sdk/testing.ts) run the same checks.
 */
import type { PaybackRail, RailFields } from './payback-rail.js';

const JUNK: unknown[] = [null, undefined, 42, 'text', [], [1, 2], { address: {} }, { rows: [null] }, { identifier: ['x'] }];
const CURRENCIES = ['', 'EUR', 'BTC', 'x'.repeat(40)];
const RAIL_ID = /^[a-z][a-z0-9_]{0,31}$/;
const CODE = /^[a-z_]+$/;

function attempt(problems: string[], what: string, work: () => void): void {
  try {
    work();
  } catch (err) {
    problems.push(`${what} threw: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Every way the rail breaks the payback-rail contract; empty when it keeps it. */
export function railProblems(rail: PaybackRail): string[] {
  const problems: string[] = [];
  const id = rail.id;
  if (!RAIL_ID.test(id)) problems.push(`id ${JSON.stringify(id)} does not match ${RAIL_ID.source}`);
  attempt(problems, 'catalog()', () => {
    const catalog = rail.catalog();
    if (catalog.id !== id) problems.push(`catalog().id is ${JSON.stringify(catalog.id)}, not the rail's id ${id}`);
    if (!catalog.label) problems.push('catalog().label is empty');
    if (catalog.fields.length === 0) problems.push('catalog().fields is empty');
    for (const field of [...catalog.fields, ...Object.values(catalog.variants?.fields ?? {}).flat()]) {
      if (field.type === 'enum' && !field.options?.length) problems.push(`enum field ${field.name} has no options`);
    }
  });
  for (const fields of JUNK) {
    for (const currency of CURRENCIES) {
      const input = JSON.stringify(fields ?? null);
      attempt(problems, `validate(${input}, ${JSON.stringify(currency)})`, () => {
        const errors = rail.validate(fields as RailFields, currency);
        if (errors.length === 0) problems.push(`validate(${input}, ${JSON.stringify(currency)}) accepted junk`);
        for (const e of errors) {
          if (typeof e.field !== 'string') problems.push(`validate(${input}) names no field`);
          if (!CODE.test(e.code)) problems.push(`validate(${input}) answered code ${JSON.stringify(e.code)}, not ${CODE.source}`);
        }
      });
      attempt(problems, `mask(${input})`, () => {
        if (typeof rail.mask((fields ?? {}) as RailFields) !== 'string') problems.push(`mask(${input}) is not a string`);
      });
      attempt(problems, `settlementPayload(${input})`, () => {
        if ((rail.settlementPayload?.(fields as RailFields, currency, '1') ?? null) !== null) problems.push(`settlementPayload(${input}) answered for junk`);
      });
    }
  }
  attempt(problems, 'precision("???")', () => {
    const precision = rail.precision('???');
    if (precision.min_unit !== 1 || !Number.isInteger(precision.exponent)) problems.push(`precision("???") is ${JSON.stringify(precision)}`);
  });
  attempt(problems, 'validate({definitely_not_a_field})', () => {
    const errors = rail.validate({ definitely_not_a_field: 'x' }, 'EUR');
    if (!errors.some((e) => e.field === 'definitely_not_a_field' && e.code === 'unknown_field')) problems.push('an unknown field is not refused with unknown_field');
  });
  return problems;
}
