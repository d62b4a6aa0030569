import { Ajv } from 'ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileValidator } from '../../../kernel/http/validation.js';
import { parseJsonExact } from '../../../kernel/http/json-exact.js';

/** Every node of a process declares the same route schemas as fresh objects: one compilation serves them all. */
describe('compileValidator', () => {
  afterEach(() => vi.restoreAllMocks());
  const schema = () => ({
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: ['string', 'number'] }, note: { type: 'string', maxLength: 3 }, cacheProbe: { const: 'validation-cache' } },
  });

  it('compiles a schema text once, however many objects carry it', () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const first = compileValidator(schema(), 'body');
    const second = compileValidator(schema(), 'body');
    expect(compile).toHaveBeenCalledTimes(1);
    // A body and a query validator of the same text are compiled apart: they coerce and admit differently.
    compileValidator(schema(), 'query');
    expect(compile).toHaveBeenCalledTimes(2);
    first({ amount: '1' });
    second({ amount: '1' });
  });

  it('keeps each route\'s error codes and exact-number admission on a shared compilation', () => {
    const a = compileValidator(schema(), 'body', { note: 'note_too_long' });
    const b = compileValidator(schema(), 'body', {}, 'invalid_body');
    expect(() => a({ amount: '1', note: 'long' })).toThrow(expect.objectContaining({ code: 'note_too_long' }));
    expect(() => b({ amount: '1', note: 'long' })).toThrow(expect.objectContaining({ code: 'invalid_body' }));
    expect(() => a(parseJsonExact('{"amount": 12345678901234567890.5}'))).not.toThrow();
    expect(() => b({})).toThrow(expect.objectContaining({ code: 'missing_field' }));
  });
});
