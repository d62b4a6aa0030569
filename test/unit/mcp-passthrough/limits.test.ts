import { describe, expect, it } from 'vitest';
import { ToolFailure } from '../../../builtin-plugins/mcp-passthrough/billing.js';
import { periodEnd, periodStart } from '../../../builtin-plugins/mcp-passthrough/budget.js';
import { CallGate } from '../../../builtin-plugins/mcp-passthrough/limits.js';

const limits = (over: Partial<{ requestsPerMinute: number; tokensPerMinute: number; parallelCalls: number; sessions: number }>) => ({
  requestsPerMinute: 0,
  tokensPerMinute: 0,
  parallelCalls: 0,
  sessions: 1,
  ...over,
});

function refusal(fn: () => unknown): ToolFailure {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolFailure) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('CallGate', () => {
  it('admits calls up to the minute limit, then says when the oldest leaves the window', () => {
    let now = 1_000_000;
    const gate = new CallGate(() => now);
    for (let i = 0; i < 3; i++) {
      gate.admit(1, limits({ requestsPerMinute: 3 })).done(0);
      now += 10_000;
    }
    const r = refusal(() => gate.admit(1, limits({ requestsPerMinute: 3 })));
    expect(r.data).toMatchObject({ limit: 'requests_per_minute', retry_after: 30 });
    // Another key has its own window.
    gate.admit(2, limits({ requestsPerMinute: 3 })).done(0);
    now += 30_000;
    gate.admit(1, limits({ requestsPerMinute: 3 })).done(0);
  });

  it('counts tokens of ended calls and waits until enough leave the window', () => {
    let now = 0;
    const gate = new CallGate(() => now);
    gate.admit(1, limits({ tokensPerMinute: 100 })).done(60);
    now = 20_000;
    gate.admit(1, limits({ tokensPerMinute: 100 })).done(50);
    now = 30_000;
    const r = refusal(() => gate.admit(1, limits({ tokensPerMinute: 100 })));
    // 110 used: the first call's 60 must leave (at 60 s) to go under 100.
    expect(r.data).toMatchObject({ limit: 'tokens_per_minute', retry_after: 30 });
    now = 60_001;
    gate.admit(1, limits({ tokensPerMinute: 100 })).done(0);
  });

  it('holds a parallel slot until done, once', () => {
    const gate = new CallGate(() => 0);
    const a = gate.admit(1, limits({ parallelCalls: 1 }));
    expect(refusal(() => gate.admit(1, limits({ parallelCalls: 1 }))).data).toMatchObject({ limit: 'parallel_calls', retry_after: 1 });
    a.done(0);
    a.done(0);
    expect(gate.running(1)).toBe(0);
    gate.admit(1, limits({ parallelCalls: 1 }));
    expect(gate.running(1)).toBe(1);
  });
});

describe('budget periods (UTC)', () => {
  const at = Date.UTC(2026, 10, 26, 15, 30); // a Thursday
  it('day, week from Monday, month', () => {
    expect(new Date(periodStart('day', at)).toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(new Date(periodStart('week', at)).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(new Date(periodStart('month', at)).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(new Date(periodEnd('day', at)).toISOString()).toBe('2026-11-27T00:00:00.000Z');
    expect(new Date(periodEnd('week', at)).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(new Date(periodEnd('month', Date.UTC(2026, 11, 31, 23))).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    // A Sunday belongs to the week that began the Monday before.
    expect(new Date(periodStart('week', Date.UTC(2026, 10, 29, 12))).toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });
});
