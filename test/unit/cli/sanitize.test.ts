/**
 * node-cli output made harmless: text from peers and clients reaches the terminal with every control, bidirectional
 * and zero-width character escaped (human output) or `\u`-escaped (JSON output, which still parses to the same
 * data); the command path accepts a default subcommand's option values; display preferences cut amounts and format
 * dates, read once per run and never in JSON mode.
 */
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { Output, formatKv, formatTable, safeJson } from '../../../kernel/cli/output.js';
import { walkCommandPath } from '../../../kernel/cli/program.js';
import { Prompter } from '../../../kernel/cli/terminal.js';
import { RAW_DISPLAY, cliDisplay, provideCliDisplay, type CliContext } from '../../../sdk/cli.js';
import { escapeUnsafeText, hasUnsafeText } from '../../../sdk/text.js';
import { displayFrom, parseApiTime } from '../../../builtin-plugins/system/cli.js';

/** Clear screen, set the window title (OSC ... BEL), 8-bit CSI, right-to-left override, zero-width space. */
const HOSTILE = 'pay\x1b[2J\x1b]0;owned\x07\u009b31m\u202eexe.txt\u200b!';
const ESCAPED = 'pay\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\u202eexe.txt\\u200b!';
/** Anything a terminal could act on, except the line breaks between lines. */
const RAW = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const rawIn = (text: string): boolean => RAW.test(text.replace(/\n/g, ''));

const sink = () => {
  let text = '';
  return { write: (s: string) => void (text += s), get text() { return text; } };
};

describe('escapeUnsafeText', () => {
  it('shows controls, C1, DEL, bidirectional, zero-width, separators and tag characters as escapes', () => {
    expect(escapeUnsafeText(HOSTILE)).toBe(ESCAPED);
    expect(escapeUnsafeText('a\x7fb\u009dc\r\n\t')).toBe('a\\x7fb\\x9dc\\x0d\\x0a\\x09');
    expect(escapeUnsafeText('\u2066x\u2069\u200e\u200f\u061c\u200d\u2060\ufeff\u2028\u2029')).toBe(
      '\\u2066x\\u2069\\u200e\\u200f\\u061c\\u200d\\u2060\\ufeff\\u2028\\u2029',
    );
    expect(escapeUnsafeText('tag\u{e0041}')).toBe('tag\\u{e0041}');
  });

  it('leaves ordinary text alone, accents, non-Latin scripts, emoji and backslashes included', () => {
    const plain = 'Zoë 東京 ☕ C:\\path 100 % (ok)';
    expect(escapeUnsafeText(plain)).toBe(plain);
    expect(hasUnsafeText(plain)).toBe(false);
    expect(hasUnsafeText('a\u202eb')).toBe(true);
  });
});

describe('human output escapes what it prints, in every helper', () => {
  it('table cells and headers, clipped after escaping; line breaks in a cell read as a space', () => {
    const lines = formatTable([{ d: HOSTILE, n: 'two\nlines' }], [
      { key: 'd', header: 'DESC' },
      { key: 'n', header: 'N\u202e' },
    ]);
    expect(lines.some(rawIn)).toBe(false);
    expect(lines[0]).toContain('N\\u202e');
    expect(lines[2]).toContain(ESCAPED);
    expect(lines[2]).toContain('two lines');
    const clipped = formatTable([{ d: HOSTILE }], [{ key: 'd', header: 'D', maxWidth: 12, format: (v) => String(v) }]);
    expect(clipped[2]).toBe('pay\\x1b[2J\\…');
  });

  it('key-value lines: labels and values, and a value cannot start a line of its own', () => {
    const lines = formatKv([[`Available ${HOSTILE}`, `x\nForged: line`]]);
    expect(lines).toHaveLength(1);
    expect(rawIn(lines[0]!)).toBe(false);
    expect(lines[0]).toContain(ESCAPED);
    expect(lines[0]).toContain('x Forged: line');
  });

  it('line, titles, empty notes, warnings and errors', () => {
    const out = sink();
    const err = sink();
    const o = new Output(false, out, err);
    o.line(`Paid 1 VWL to ${HOSTILE}`);
    o.line('one\nForged line');
    o.table([], [{ key: 'a', header: 'A' }], { title: `Contact ${HOSTILE}`, empty: HOSTILE });
    o.kv([['k', HOSTILE]], { title: HOSTILE });
    o.success({ message: HOSTILE, note: HOSTILE });
    o.warn(HOSTILE);
    o.finishError('x', `first ${HOSTILE}\n  field: bad \x1b[31m`, undefined, null);
    expect(rawIn(out.text)).toBe(false);
    expect(rawIn(err.text)).toBe(false);
    expect(out.text).toContain(`Paid 1 VWL to ${ESCAPED}\n`);
    expect(out.text).toContain('one\\x0aForged line\n');
    expect(out.text.split(ESCAPED).length - 1).toBe(7);
    // A validation failure lists its fields one per line: those line breaks are the message's own.
    expect(err.text).toBe(`${ESCAPED}\nError: first ${ESCAPED}\n  field: bad \\x1b[31m\n`);
  });

  it('prompts escape the question', async () => {
    const stdin = new PassThrough();
    const stderr = sink();
    const prompter = new Prompter({ stdin, stderr: Object.assign(new PassThrough(), { write: (s: string) => (stderr.write(s), true) }) as never });
    const answer = prompter.ask(`Delete ${HOSTILE}? `);
    stdin.write('y\n');
    expect(await answer).toBe('y');
    prompter.close();
    expect(rawIn(stderr.text)).toBe(false);
    expect(stderr.text).toContain(ESCAPED);
  });
});

describe('JSON output', () => {
  it('is the same data once parsed, with nothing a terminal could act on in its bytes', () => {
    const data = { description: HOSTILE, other: '\u2028\u2029\x7f\u{e0041}\ufeff', plain: 'Zoë ☕' };
    const text = safeJson({ success: true, data });
    expect(JSON.parse(text)).toEqual({ success: true, data });
    expect(rawIn(text)).toBe(false);
    expect(text).toContain('\\u202e');
    expect(text).toContain('\\u009b');
    expect(text).toContain('\\udb40\\udc41');
    expect(text).toContain('Zoë ☕');

    const out = sink();
    const o = new Output(true, out, sink());
    o.success(data);
    o.finishSuccess(null);
    expect(rawIn(out.text)).toBe(false);
    expect(JSON.parse(out.text).data).toEqual(data);
    const failed = sink();
    new Output(true, failed, sink()).finishError('peer_refused', HOSTILE, { detail: HOSTILE }, null);
    expect(rawIn(failed.text)).toBe(false);
    expect(JSON.parse(failed.text).error).toEqual({ code: 'peer_refused', message: HOSTILE, detail: HOSTILE });
  });
});

describe('command path', () => {
  const program = (): Command => {
    const root = new Command('node-cli');
    const dlq = root.command('dlq');
    dlq.command('list', { isDefault: true }).option('--status <status>').option('--since [when]').action(() => undefined);
    dlq.command('retry').argument('<id>').action(() => undefined);
    return root;
  };

  it("takes the value of a default subcommand's option as a value, not as a command word", () => {
    for (const argv of [['dlq', '--status', 'all'], ['dlq', '--status=all'], ['dlq', '--since', 'today'], ['dlq', '--since', '--status', 'all']]) {
      const walked = walkCommandPath(program(), argv);
      expect(walked.unknown, argv.join(' ')).toBeNull();
      expect(walked.path.map((c) => c.name())).toEqual(['dlq']);
    }
    expect(walkCommandPath(program(), ['dlq', 'list', '--status', 'all']).path.map((c) => c.name())).toEqual(['dlq', 'list']);
    expect(walkCommandPath(program(), ['dlq', 'bogus']).unknown?.word).toBe('bogus');
    expect(walkCommandPath(program(), ['dlq', '--verbose', 'bogus']).unknown?.word).toBe('bogus');
  });
});

describe('display preferences', () => {
  it('format API timestamps in displayDateFormat (UTC); zone-less timestamps are UTC', () => {
    expect(parseApiTime('2026-03-04 05:06:07')?.toISOString()).toBe('2026-03-04T05:06:07.000Z');
    expect(parseApiTime('2026-03-04T05:06:07.123Z')?.toISOString()).toBe('2026-03-04T05:06:07.123Z');
    expect(parseApiTime('soon')).toBeNull();
    const show = displayFrom({ display_decimals: 3, display_date_format: 'YYYY/MM/DD HH:mm:ss' });
    expect(show.date('2026-03-04T05:06:07.000Z')).toBe('2026/03/04 05:06:07');
    expect(show.date('2026-03-04 05:06:07')).toBe('2026/03/04 05:06:07');
    expect(show.date(null)).toBe('-');
    // displayDecimals is the GUI's: node-cli shows all 8 decimals.
    expect(show.amount('1.23456789')).toBe('1.23456789');
    expect(show.amount(undefined)).toBe('-');
    expect(displayFrom({ display_decimals: 2, display_date_format: 'unix' }).date('1970-01-01T00:01:40Z')).toBe('100');
    // A format built from the tokens, not one of the listed ones, is followed too.
    expect(displayFrom({ display_decimals: 2, display_date_format: 'HH:mm DD.MM.YYYY' }).date('2026-03-04T05:06:07Z')).toBe('05:06 04.03.2026');
  });

  it('show values as given when the settings are unusable', () => {
    const show = displayFrom({ display_decimals: 'x', display_date_format: '%Y' });
    expect(show.amount('1.23456789')).toBe('1.23456789');
    expect(show.date('2026-03-04 05:06:07')).toBe('2026-03-04 05:06:07');
  });

  it('are read once per run, and never in JSON mode', async () => {
    const load = vi.fn(async () => displayFrom({ display_decimals: 1, display_date_format: 'YYYY-MM-DD' }));
    const human = { json: false, api: {} } as unknown as CliContext;
    provideCliDisplay(human, load);
    const [a, b] = await Promise.all([cliDisplay(human), cliDisplay(human)]);
    expect(a.date('2026-03-04T05:06:07Z')).toBe('2026-03-04');
    expect(b).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);

    const json = { json: true, api: {} } as unknown as CliContext;
    provideCliDisplay(json, load);
    expect(await cliDisplay(json)).toBe(RAW_DISPLAY);
    expect(load).toHaveBeenCalledTimes(1);
    expect(await cliDisplay({ json: false, api: {} } as unknown as CliContext)).toBe(RAW_DISPLAY);
  });
});
