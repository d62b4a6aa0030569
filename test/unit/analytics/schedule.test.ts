import { describe, expect, it } from 'vitest';
import { DAY_MS, nextHeartbeatAt, reportWindow, utcStamp } from '../../../builtin-plugins/analytics/schedule.js';

const at = (iso: string): number => Date.parse(iso);
const fixed = (r: number) => () => r;

describe('analytics schedule: 03:00 UTC plus a random 0-3600 s delay', () => {
  it('takes the next 03:00 UTC strictly after now', () => {
    expect(nextHeartbeatAt(at('2025-03-10T02:59:59.999Z'), fixed(0))).toBe(at('2025-03-10T03:00:00Z'));
    expect(nextHeartbeatAt(at('2025-03-10T03:00:00Z'), fixed(0))).toBe(at('2025-03-11T03:00:00Z'));
    expect(nextHeartbeatAt(at('2025-03-10T03:30:00Z'), fixed(0))).toBe(at('2025-03-11T03:00:00Z'));
    expect(nextHeartbeatAt(at('2025-12-31T22:00:00Z'), fixed(0))).toBe(at('2026-01-01T03:00:00Z'));
  });

  it('adds a delay of whole seconds from 0 to 3600 inclusive, fresh each time', () => {
    const now = at('2025-03-10T12:00:00Z');
    const slot = at('2025-03-11T03:00:00Z');
    expect(nextHeartbeatAt(now, fixed(0.5)) - slot).toBe(1800_000);
    expect(nextHeartbeatAt(now, fixed(0.9999999)) - slot).toBe(3600_000);
    expect(nextHeartbeatAt(now, fixed(1 / 3601)) - slot).toBe(1000);
    const seen = new Set(Array.from({ length: 200 }, () => nextHeartbeatAt(now) - slot));
    expect(seen.size).toBeGreaterThan(100);
    for (const d of seen) {
      expect(d % 1000).toBe(0);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(3600_000);
    }
  });
});

describe('analytics report window and period_days', () => {
  const now = at('2025-06-20T03:20:00Z');

  it('counts whole days since the opt-in when nothing was accepted yet, never before the opt-in', () => {
    expect(reportWindow(now, now - 10 * DAY_MS, null)).toEqual({ from: now - 10 * DAY_MS, to: now, periodDays: 10 });
    // Two hours after consent: period_days is clamped up to 1, the counted period still starts at the opt-in.
    expect(reportWindow(now, now - 2 * 3600_000, null)).toEqual({ from: now - 2 * 3600_000, to: now, periodDays: 1 });
  });

  it('starts at the later of the last accepted period and the opt-in', () => {
    expect(reportWindow(now, now - 30 * DAY_MS, now - 3 * DAY_MS)).toEqual({ from: now - 3 * DAY_MS, to: now, periodDays: 3 });
    // Re-enabled after the last report: the new opt-in wins.
    expect(reportWindow(now, now - DAY_MS / 2, now - 5 * DAY_MS)).toEqual({ from: now - DAY_MS / 2, to: now, periodDays: 1 });
  });

  it('widens after failures: the period stays open from the last accepted report', () => {
    const covered = now - 4 * DAY_MS - 3600_000;
    expect(reportWindow(now, now - 40 * DAY_MS, covered)).toEqual({ from: covered, to: now, periodDays: 4 });
  });

  it('clamps to 365 days and to 1 day for a start in the future (clock set back)', () => {
    expect(reportWindow(now, now - 500 * DAY_MS, null)).toEqual({ from: now - 365 * DAY_MS, to: now, periodDays: 365 });
    expect(reportWindow(now, now + DAY_MS, null)).toEqual({ from: now, to: now, periodDays: 1 });
    expect(reportWindow(now, null, null)).toEqual({ from: now - DAY_MS, to: now, periodDays: 1 });
  });

  it('stamps times as UTC seconds', () => {
    expect(utcStamp(at('2025-06-20T03:20:01.987Z'))).toBe('2025-06-20T03:20:01Z');
  });
});
