/**
 * What peers and clients wrote reaches the log in messages and fields: in both formats a line stays one line and no
 * control, bidirectional or line-separator character gets through raw; the JSON line still parses to the original.
 */
import { describe, expect, it } from 'vitest';
import { formatLine } from '../../kernel/log.js';
import type { LogEntry } from '../../sdk/index.js';

const hostile = 'paid\u001b[2J\r\nERROR [kernel] forged\u202egnp.exe\u2028\u0085\u{e0041}';
const entry: LogEntry = { at: '2026-11-28T12:00:00.000Z', level: 'WARNING', source: 'contacts', message: `refused: ${hostile}`, request_id: 'r1', fields: { reason: hostile } };
const RAW_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('log lines', () => {
  it('json: one line, nothing unsafe raw, and it parses back to the original text', () => {
    const line = formatLine('json', entry);
    expect(line.endsWith('\n')).toBe(true);
    expect(RAW_UNSAFE.test(line.slice(0, -1))).toBe(false);
    const parsed = JSON.parse(line);
    expect(parsed).toEqual({ time: entry.at, level: 'WARNING', component: 'contacts', message: entry.message, request_id: 'r1', fields: { reason: hostile } });
  });

  it('text: one line with the characters shown as escapes, and the request id at its end', () => {
    const line = formatLine('text', entry);
    expect(line.endsWith(' request_id=r1\n')).toBe(true);
    expect(RAW_UNSAFE.test(line.slice(0, -1))).toBe(false);
    expect(line).toContain('[contacts] refused: paid\\x1b[2J\\x0d\\x0aERROR [kernel] forged\\u202egnp.exe');
  });
});
