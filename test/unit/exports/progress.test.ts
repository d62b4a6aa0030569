/**
 * The progress line of node-cli on a terminal (ctx.progress): work can change its label as it goes (export shows
 * the lines and bytes written so far); off a terminal nothing is drawn and the work still gets its update function.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withSpinner } from '../../../kernel/cli/terminal.js';

function terminal(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stderr: { isTTY, write: (s: string) => void writes.push(s) } as never };
}

describe('progress line', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('on a terminal: the label, then each newer label at the next frame, escaped; the line is cleared at the end', async () => {
    const { writes, stderr } = terminal(true);
    let finish!: () => void;
    const done = withSpinner(stderr, 'Exporting transactions', (update) => {
      return new Promise<string>((resolve) => {
        finish = () => resolve('ok');
        update('Exporting transactions: 1,000 lines, 120.0 KB');
      });
    });
    await vi.advanceTimersByTimeAsync(260);
    expect(writes.at(-1)).toMatch(/^\r. Exporting transactions: 1,000 lines, 120\.0 KB\x1b\[K$/);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(await done).toBe('ok');
    expect(writes.at(-1)).toBe('\r\x1b[K');
  });

  it('the label of a peer-supplied name cannot steer the terminal', async () => {
    const { writes, stderr } = terminal(true);
    const done = withSpinner(stderr, 'x', async (update) => {
      update('name\x1b[2Jx');
      await new Promise((r) => setTimeout(r, 300));
    });
    await vi.advanceTimersByTimeAsync(300);
    await done;
    expect(writes.some((w) => w.includes('name\\x1b[2Jx'))).toBe(true);
    expect(writes.some((w) => w.includes('\x1b[2J'))).toBe(false);
  });

  it('off a terminal: nothing drawn, updates accepted', async () => {
    const { writes, stderr } = terminal(false);
    expect(await withSpinner(stderr, 'Exporting', async (update) => (update('more'), 7))).toBe(7);
    expect(writes).toEqual([]);
  });
});
