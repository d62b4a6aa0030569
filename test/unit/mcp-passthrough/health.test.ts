import { describe, expect, it } from 'vitest';
import { countsAgainst, FAILURE_THRESHOLD, Health } from '../../../builtin-plugins/mcp-passthrough/health.js';

const down = { code: 'upstream_unreachable' as const, message: 'ECONNREFUSED' };

describe('provider health', () => {
  it('cools after repeated failures, lets one probe through after the cooldown, and doubles the cooldown when it fails', () => {
    let now = 1_000;
    const h = new Health(() => now, () => 10_000);
    for (let i = 1; i < FAILURE_THRESHOLD; i++) h.failed('p/m', down);
    expect(h.state('p/m')).toBe('healthy');
    h.failed('p/m', down);
    expect(h.state('p/m')).toBe('cooling');
    expect(h.begin('p/m')).toBe(false);
    now += 10_000;
    expect(h.state('p/m')).toBe('half_open');
    expect(h.skipped('p/m')).toBe(false);
    expect(h.begin('p/m')).toBe(true);
    expect(h.state('p/m')).toBe('probing');
    expect(h.begin('p/m')).toBe(false);
    h.failed('p/m', down);
    expect(h.view('p/m')).toMatchObject({ state: 'cooling', cool_until: new Date(now + 20_000).toISOString(), last_error: 'upstream_unreachable: ECONNREFUSED' });
    now += 20_000;
    expect(h.begin('p/m')).toBe(true);
    expect(h.view('p/m').in_flight).toBe(1);
    h.succeeded('p/m');
    expect(h.view('p/m')).toEqual({ state: 'healthy', in_flight: 0, consecutive_failures: 0, cool_until: null, last_error: null, last_failure_at: null });
  });

  it('frees the probe when it ends without a verdict, and counts only failures that are the place’s', () => {
    let now = 0;
    const h = new Health(() => now, () => 5);
    for (let i = 0; i < FAILURE_THRESHOLD; i++) h.failed('p/m', down);
    now = 5;
    expect(h.begin('p/m')).toBe(true);
    h.released('p/m');
    expect(h.state('p/m')).toBe('half_open');
    expect(countsAgainst({ code: 'cancelled', message: '' })).toBe(false);
    expect(countsAgainst({ code: 'upstream_error', message: '', status: 400 })).toBe(false);
    expect(countsAgainst({ code: 'upstream_error', message: '', status: 404 })).toBe(false);
    for (const status of [401, 403, 429, 500, 503]) expect(countsAgainst({ code: 'upstream_error', message: '', status })).toBe(true);
    expect(countsAgainst({ code: 'upstream_timeout', message: '' })).toBe(true);
  });
});
