import { describe, expect, it } from 'vitest';
import { AuthFailureLimiter, type FailureLimits } from '../../../kernel/auth/failure-limiter.js';
import type { Logger } from '../../../sdk/index.js';

/** What an address flood costs: memory and log lines stay bounded however many addresses fail. */
describe('AuthFailureLimiter bounds', () => {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = { debug: () => {}, info: () => {}, error: () => {}, warn: (message, fields) => void lines.push({ message, fields }) };
  const limits: FailureLimits = { maxAttempts: 1, windowSeconds: 60, blockSeconds: 300 };
  const blocked = (limiter: AuthFailureLimiter, ip: string, now: number): boolean => {
    try {
      limiter.refuseBlocked(ip, now);
      return false;
    } catch {
      return true;
    }
  };

  it('tracks at most 100,000 addresses, forgetting the oldest first', () => {
    const limiter = new AuthFailureLimiter(() => limits, log);
    const now = 1_000_000;
    for (let i = 0; i <= 100_000; i++) limiter.failed(`2001:db8::${i.toString(16)}`, 'auth_invalid_signature', now);
    expect(limiter.size).toBe(100_000);
    expect(blocked(limiter, '2001:db8::0', now)).toBe(false);
    expect(blocked(limiter, '2001:db8::1', now)).toBe(true);
  });

  it('forgets addresses whose window and block are over', () => {
    const limiter = new AuthFailureLimiter(() => ({ maxAttempts: 5, windowSeconds: 1, blockSeconds: 1 }), log);
    for (let i = 0; i < 50; i++) limiter.failed(`198.51.100.${i}`, 'auth_invalid_key', 0);
    expect(limiter.size).toBe(50);
    limiter.failed('198.51.100.200', 'auth_invalid_key', 61_000);
    expect(limiter.size).toBe(1);
  });

  it('writes at most 60 lines a minute across addresses, then says how many it dropped', () => {
    lines.length = 0;
    const limiter = new AuthFailureLimiter(() => ({ ...limits, maxAttempts: 100 }), log);
    for (let i = 0; i < 200; i++) limiter.failed(`192.0.2.${i}`, 'auth_invalid_signature', 120_000);
    expect(lines).toHaveLength(60);
    limiter.failed('203.0.113.1', 'auth_invalid_signature', 180_000);
    expect(lines).toHaveLength(61);
    expect(lines[60]!.fields).toMatchObject({ ip: '203.0.113.1', log_lines_dropped: 140 });
  });
});
