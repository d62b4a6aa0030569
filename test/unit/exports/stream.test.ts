/**
 * The export body pulls rows only as fast as it is read (constant memory whatever the count), ends with the
 * sentinel when its source fails, and closes its source when the reader goes away.
 */
import { describe, expect, it } from 'vitest';
import { csvEncoder, ndjsonEncoder, type Column } from '../../../builtin-plugins/exports/encode.js';
import { ExportStream } from '../../../builtin-plugins/exports/stream.js';

const columns: Column<number>[] = [
  { name: 'n', kind: 'int', get: (n) => n },
  { name: 'label', kind: 'text', get: (n) => `row ${n}` },
];

function source(limit: number, failAt = -1) {
  const state = { pulled: 0, closed: false };
  function* rows(): Generator<number> {
    try {
      for (let n = 0; n < limit; n++) {
        if (n === failAt) throw new Error('disk on fire');
        state.pulled++;
        yield n;
      }
    } finally {
      state.closed = true;
    }
  }
  return { rows: rows(), state };
}

async function readAll(stream: ExportStream<number>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

describe('export stream', () => {
  it('pulls rows only as the reader asks: a reader that stops after one chunk leaves the source almost untouched', async () => {
    const { rows, state } = source(10_000_000);
    const first = rows.next();
    const stream = new ExportStream(first, rows, csvEncoder(columns), () => 'unused');
    const reader = stream[Symbol.asyncIterator]();
    const chunk = await reader.next();
    expect(String(chunk.value).startsWith('\uFEFFn,label\r\n0,row 0\r\n')).toBe(true);
    // One chunk is 64 KiB of rows (about 5,000 here); the high-water mark allows one more in the buffer.
    expect(state.pulled).toBeLessThan(20_000);
    await reader.return!();
    expect(stream.destroyed).toBe(true);
    expect(state.closed).toBe(true);
  });

  it('every row, in order, then the end; an empty source gives the header alone', async () => {
    const { rows } = source(20_000);
    const text = await readAll(new ExportStream(rows.next(), rows, ndjsonEncoder(columns), () => 'unused'));
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { n: number });
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    const empty = source(0);
    expect(await readAll(new ExportStream(empty.rows.next(), empty.rows, csvEncoder(columns), () => 'unused'))).toBe('\uFEFFn,label\r\n');
  });

  it('a failure after rows were written: those rows, then the sentinel line, then the end', async () => {
    const failures: [string, number][] = [];
    const { rows } = source(100_000, 7_000);
    const text = await readAll(
      new ExportStream(rows.next(), rows, csvEncoder(columns), (err, written) => {
        failures.push([(err as Error).message, written]);
        return `interrupted after ${written} rows`;
      }),
    );
    const lines = text.split('\r\n');
    expect(lines).toHaveLength(1 + 7_000 + 1 + 1);
    expect(lines.at(-3)).toBe('6999,row 6999');
    expect(lines.at(-2)).toBe('#ERROR interrupted after 7000 rows');
    expect(lines.at(-1)).toBe('');
    expect(failures).toEqual([['disk on fire', 7_000]]);
  });
});
