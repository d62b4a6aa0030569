import { describe, expect, it } from 'vitest';
import { compileValidator } from '../../../kernel/http/validation.js';
import { parseJsonExact } from '../../../kernel/http/json-exact.js';

/** Every node of a process declares the same route schemas as fresh objects, served by one compilation: each keeps its own error mapping. */
describe('compileValidator', () => {
  const schema = () => ({
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: ['string', 'number'] }, note: { type: 'string', maxLength: 3 }, cacheProbe: { const: 'validation-cache' } },
  });

  it('keeps each route\'s error codes and exact-number admission on a shared compilation', () => {
    const a = compileValidator(schema(), 'body', { note: 'note_too_long' });
    const b = compileValidator(schema(), 'body', {}, 'invalid_body');
    expect(() => a({ amount: '1', note: 'long' })).toThrow(expect.objectContaining({ code: 'note_too_long' }));
    expect(() => b({ amount: '1', note: 'long' })).toThrow(expect.objectContaining({ code: 'invalid_body' }));
    expect(() => a(parseJsonExact('{"amount": 12345678901234567890.5}'))).not.toThrow();
    expect(() => b({})).toThrow(expect.objectContaining({ code: 'missing_field' }));
  });

  it('an unknown field named like an object member still gets the route\'s code (it had none: the lookup read Object.prototype)', () => {
    const closed = compileValidator({ type: 'object', additionalProperties: false, properties: { note: { type: 'string' } } }, 'body', { note: 'bad_note' });
    for (const field of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const body = JSON.parse(`{"${field}": 1}`) as unknown;
      expect(() => closed(body)).toThrow(expect.objectContaining({ code: 'validation_error', status: 400, context: { field } }));
    }
  });
});
