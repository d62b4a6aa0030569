import { describe, expect, it } from 'vitest';
import { extractGlobalOptions } from '../../../kernel/cli/argv.js';
import { Output, formatKv, formatTable } from '../../../kernel/cli/output.js';
import { settingRows, toSettingName } from '../../../builtin-plugins/system/cli.js';

const sink = () => {
  let text = '';
  return { write: (s: string) => void (text += s), get text() { return text; } };
};

describe('global options', () => {
  it('are taken from anywhere on the line', () => {
    expect(extractGlobalOptions(['info', '-j', 'detail', '--no-metadata'])).toEqual({
      globals: { json: true, metadata: false, dataDir: null },
      rest: ['info', 'detail'],
    });
    expect(extractGlobalOptions(['--data-dir', '/x', 'info']).globals.dataDir).toBe('/x');
    expect(extractGlobalOptions(['--data-dir=/y', 'info']).globals.dataDir).toBe('/y');
  });

  it('leave everything after -- alone', () => {
    expect(extractGlobalOptions(['changesettings', 'name', '--', '--json']).rest).toEqual(['changesettings', 'name', '--', '--json']);
  });

  it('refuse --data-dir without a value', () => {
    expect(() => extractGlobalOptions(['info', '--data-dir'])).toThrow(/--data-dir/);
  });
});

describe('human output', () => {
  it('aligns table columns under a dashed rule, right-aligning numbers on request', () => {
    const lines = formatTable(
      [
        { name: 'alpha', n: 5, on: true },
        { name: 'b', n: 1234, on: false },
      ],
      [
        { key: 'name', header: 'NAME' },
        { key: 'n', header: 'COUNT', align: 'right' },
        { key: 'on', header: 'ON' },
      ],
    );
    expect(lines).toEqual(['NAME   COUNT  ON', '-----  -----  ---', 'alpha      5  yes', 'b       1234  no']);
  });

  it('cuts long cells and prints null as -', () => {
    const lines = formatTable([{ a: 'abcdefghij', b: null }], [
      { key: 'a', header: 'A', maxWidth: 5 },
      { key: 'b', header: 'B' },
    ]);
    expect(lines[2]).toBe('abcd…  -');
  });

  it('aligns key-value lines', () => {
    expect(formatKv([['a', 1], ['long key', ['x', 'y']]], 2)).toEqual(['  a         1', '  long key  x, y']);
  });

  it('prints nothing but the envelope in JSON mode', () => {
    const out = sink();
    const err = sink();
    const o = new Output(true, out, err);
    o.line('hidden');
    o.table([{ a: 1 }], [{ key: 'a', header: 'A' }]);
    o.success({ x: 1 }, 'also hidden');
    o.finishSuccess({ timestamp: 't', node_id: 'n', command: 'c' });
    expect(JSON.parse(out.text)).toEqual({ success: true, data: { x: 1 }, metadata: { timestamp: 't', node_id: 'n', command: 'c' } });
  });

  it('writes failures as Error: on stderr, or as the JSON error envelope', () => {
    const out = sink();
    const err = sink();
    new Output(false, out, err).finishError('x', 'it broke', undefined, null);
    expect(err.text).toBe('Error: it broke\n');
    expect(out.text).toBe('');
    const jout = sink();
    new Output(true, jout, err).finishError('validation_error', 'bad', { status: 400, code: 'ignored' }, null);
    expect(JSON.parse(jout.text)).toEqual({ success: false, error: { code: 'validation_error', message: 'bad', status: 400 } });
  });
});

describe('settings helpers', () => {
  it('accept camelCase, snake_case and kebab-case names', () => {
    expect(toSettingName('defaultFee')).toBe('default_fee');
    expect(toSettingName('default_fee')).toBe('default_fee');
    expect(toSettingName('default-fee')).toBe('default_fee');
    expect(toSettingName('maxP2pLevel')).toBe('max_p2p_level');
    expect(toSettingName('httpTransportTimeoutSeconds')).toBe('http_transport_timeout_seconds');
  });

  it('group settings by category, sorted, with notes', () => {
    const rows = settingRows({
      settings: { b: 1, a: 2, z: 3 },
      categories: { net: ['b'], api: ['a'] },
      overridden: ['b'],
    });
    expect(rows.map((r) => [r.category, r.name, r.note])).toEqual([
      ['api', 'a', ''],
      ['net', 'b', 'set by environment'],
      ['other', 'z', ''],
    ]);
  });
});
