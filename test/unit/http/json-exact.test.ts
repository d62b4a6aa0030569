import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../../kernel/http/json-exact.js';
import { ExactNumber } from '../../../sdk/money.js';

/** The parser must agree with JSON.parse on everything but the numbers a double cannot hold. */
describe('parseJsonExact', () => {
  it.each([
    '{}',
    '[]',
    ' \t\r\n{ "a" : [ 1 , -2.5e3 , 0 , -0 , 1E2 , 0.1 , 12.5 ] , "b" : { "c" : null , "d" : true , "e" : false } } ',
    '"plain"',
    '"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00 \\ud800"',
    '"raw unicode é 😀 \u2028"',
    '{"a":1,"a":2}',
    '[[[[[[[[[[[]]]]]]]]]]]',
    '9007199254740992',
    '1e-7',
    '123456789012345',
    '{"":""}',
  ])('reads %s as JSON.parse does', (text) => {
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
  });

  it.each([
    '',
    ' ',
    '{',
    '[1,]',
    '{"a":1,}',
    '{a:1}',
    "{'a':1}",
    '01',
    '1.',
    '.5',
    '+1',
    '-',
    '1e',
    '0x10',
    'NaN',
    'Infinity',
    'tru',
    'nul',
    '"unterminated',
    '"bad \\x escape"',
    '"tab\tinside"',
    '[1] [2]',
    '\ufeff{}',
    '{"a" 1}',
    '[1 2]',
  ])('refuses %j like JSON.parse', (text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseJsonExact(text)).toThrow(SyntaxError);
  });

  it.each([
    ['1234567890.12345678', '1234567890.12345678'],
    ['9223372036854775807', '9223372036854775807'],
    ['9007199254740993', '9007199254740993'],
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    ['1e400', '1e400'],
    ['-1e400', '-1e400'],
    ['1e-400', '1e-400'],
  ])('keeps %s as its text', (text, kept) => {
    const value = parseJsonExact(`{"amount":${text}}`) as { amount: unknown };
    expect(value.amount).toBeInstanceOf(ExactNumber);
    expect((value.amount as ExactNumber).text).toBe(kept);
    expect(String(value.amount)).toBe(kept);
    expect(Number(value.amount)).toBeNaN();
    expect(JSON.stringify(value)).toBe(`{"amount":"${kept}"}`);
  });

  it('keeps a __proto__ member as data, never as the prototype', () => {
    const value = parseJsonExact('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(value).toEqual(JSON.parse('{"__proto__":{"polluted":true},"a":1}'));
  });

  it('takes nesting far deeper than the call stack', () => {
    const depth = 200_000;
    const value = parseJsonExact('['.repeat(depth) + ']'.repeat(depth));
    let level = 0;
    for (let v = value; Array.isArray(v) && v.length; v = v[0]) level++;
    expect(level).toBe(depth - 1);
  });
});
