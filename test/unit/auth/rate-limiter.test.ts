import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../../kernel/auth/rate-limiter.js';

describe('SlidingWindowLimiter', () => {
  it('admits exactly `limit` hits in a window and refuses the next', () => {
    const l = new SlidingWindowLimiter();
    for (let i = 0; i < 100; i++) expect(l.take('k', 100, 1_000 + i)).toBe(0);
    expect(l.take('k', 100, 1_100)).toBeGreaterThan(0);
  });

  it('slides: a slot frees exactly when the oldest hit leaves the 60 s window', () => {
    const l = new SlidingWindowLimiter();
    expect(l.take('k', 2, 0)).toBe(0);
    expect(l.take('k', 2, 30_000)).toBe(0);
    expect(l.take('k', 2, 59_999)).toBe(1);
    expect(l.take('k', 2, 60_000)).toBe(0); // the hit at 0 left the window
    expect(l.take('k', 2, 60_001)).toBe(30); // next slot when the hit at 30 000 leaves
    expect(l.take('k', 2, 90_000)).toBe(0);
  });

  it('is not fooled by a burst at a fixed-window boundary', () => {
    const l = new SlidingWindowLimiter();
    for (let i = 0; i < 5; i++) expect(l.take('k', 5, 59_000 + i)).toBe(0);
    // a fixed per-minute window would reset at 60 000 and allow 5 more
    expect(l.take('k', 5, 61_000)).toBeGreaterThan(0);
    expect(l.take('k', 5, 119_000)).toBe(0);
  });

  it('answers Retry-After in whole seconds, at least 1', () => {
    const l = new SlidingWindowLimiter();
    expect(l.take('k', 1, 10_000)).toBe(0);
    expect(l.take('k', 1, 10_001)).toBe(60);
    expect(l.take('k', 1, 69_500)).toBe(1);
    expect(l.take('k', 1, 69_999)).toBe(1);
  });

  it('does not record refused hits, so a client hammering a full window is not locked out longer', () => {
    const l = new SlidingWindowLimiter();
    expect(l.take('k', 1, 0)).toBe(0);
    for (let t = 1; t < 60_000; t += 1_000) expect(l.take('k', 1, t)).toBeGreaterThan(0);
    expect(l.take('k', 1, 60_000)).toBe(0);
  });

  it('keeps one window per id', () => {
    const l = new SlidingWindowLimiter();
    expect(l.take('a', 1, 0)).toBe(0);
    expect(l.take('a', 1, 1)).toBeGreaterThan(0);
    expect(l.take('b', 1, 1)).toBe(0);
  });

  it('applies a lowered limit at once and a raised one as room allows', () => {
    const l = new SlidingWindowLimiter();
    for (let i = 0; i < 5; i++) l.take('k', 10, i);
    expect(l.take('k', 3, 10)).toBeGreaterThan(0);
    expect(l.take('k', 6, 11)).toBe(0);
    expect(l.take('k', 6, 12)).toBeGreaterThan(0);
  });

  it('forgets an id', () => {
    const l = new SlidingWindowLimiter();
    l.take('k', 1, 0);
    l.forget('k');
    expect(l.take('k', 1, 1)).toBe(0);
  });

  it('honours a custom window length', () => {
    const l = new SlidingWindowLimiter(1_000);
    expect(l.take('k', 1, 0)).toBe(0);
    expect(l.take('k', 1, 999)).toBe(1);
    expect(l.take('k', 1, 1_000)).toBe(0);
  });

  it('keeps memory bounded by the limit', () => {
    const l = new SlidingWindowLimiter();
    for (let i = 0; i < 10_000; i++) l.take('k', 10, i);
    // 10 admitted hits in the window, everything else refused without being recorded
    let admitted = 0;
    for (let i = 0; i < 10; i++) if (l.take('k', 20, 10_000 + i) === 0) admitted++;
    expect(admitted).toBe(10);
    expect(l.take('k', 20, 10_100)).toBeGreaterThan(0);
  });

  it('forgets ids idle for a whole window (client addresses come and go), keeping the ones still counting', () => {
    const l = new SlidingWindowLimiter();
    for (let i = 0; i < 1000; i++) expect(l.take(`198.51.100.${i}`, 5, 1_000)).toBe(0);
    expect(l.take('busy', 2, 30_000)).toBe(0);
    expect(l.take('busy', 2, 30_001)).toBe(0);
    expect(l.size).toBe(1001);
    // A window after the first sweep: the 1000 idle ids go, `busy` stays (still inside its window) and still counts.
    expect(l.take('other', 5, 61_000)).toBe(0);
    expect(l.size).toBe(2);
    expect(l.take('busy', 2, 61_000)).toBe(29); // its two hits (30 000, 30 001) still fill its limit
  });
});

