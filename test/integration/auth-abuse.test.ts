/**
 * Failed authentications from one client address: `rateLimitMaxAttempts` failures within `rateLimitWindowSeconds`
 * block the address for `rateLimitBlockSeconds` (429 rate_limit_exceeded with Retry-After, even for a valid
 * request), while other addresses, and loopback, go on. Each setting has a test that fails if the setting is ignored.
 * Client addresses come from X-Forwarded-For, believed because the test nodes trust loopback as their proxy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelSettings } from '../../kernel/settings-catalog.js';
import { ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const PATH = '/api/v1/keys';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('blocking client addresses that keep failing authentication', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  });
  afterAll(async () => {
    await t?.destroy();
  });

  const limits = (max: number, windowSeconds: number, blockSeconds: number) =>
    ok(t, 'PUT', '/api/v1/system/settings', {
      rate_limit_max_attempts: max,
      rate_limit_window_seconds: windowSeconds,
      rate_limit_block_seconds: blockSeconds,
    });

  /** A correctly signed call by the admin key, as if from `ip` (no address: straight from loopback). */
  const valid = (ip?: string) => t.admin.get<any>(PATH, ip ? { headers: { 'X-Forwarded-For': ip } } : {});

  /** Three different refusals of the verifier: a bad signature, an unknown key, a stale timestamp. */
  const failures = [
    (ip?: string) => t.admin.get<any>(PATH, { headers: { ...(ip ? { 'X-Forwarded-For': ip } : {}), 'X-API-Signature': 'f'.repeat(64) } }),
    (ip?: string) => t.admin.get<any>(PATH, { headers: { ...(ip ? { 'X-Forwarded-For': ip } : {}), 'X-API-Key': `${t.admin.credentials.keyId}0` } }),
    (ip?: string) => t.admin.get<any>(PATH, { timestamp: '1000000000', ...(ip ? { headers: { 'X-Forwarded-For': ip } } : {}) }),
  ];
  const fail = async (ip: string | undefined, n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const res = await failures[i % failures.length]!(ip);
      expect(res.status).toBe(401);
    }
  };

  it('rateLimitMaxAttempts: at 3 the third failure blocks the address, every request of it gets 429; at 10 it does not', async () => {
    await limits(3, 60, 300);
    await fail('203.0.113.10', 3);
    const blocked = await valid('203.0.113.10');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limit_exceeded');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(290);
    expect(retryAfter).toBeLessThanOrEqual(300);
    // refused before authentication: a request without any credential gets the 429 too, not a 401
    const bare = await fetch(`${t.node.baseUrl}${PATH}`, { headers: { 'X-Forwarded-For': '203.0.113.10' } });
    expect(bare.status).toBe(429);
    // other addresses are unaffected, and loopback (node-cli) is never blocked, even after its own failures
    expect((await valid('203.0.113.11')).status).toBe(200);
    await fail(undefined, 4);
    expect((await valid()).status).toBe(200);

    await limits(10, 60, 300);
    await fail('203.0.113.20', 3);
    expect((await valid('203.0.113.20')).status).toBe(200);
  });

  it('a replayed nonce counts as a failure', async () => {
    await limits(2, 60, 300);
    const nonce = 'replayed-nonce-0001';
    expect((await t.admin.get(PATH, { nonce, headers: { 'X-Forwarded-For': '203.0.113.30' } })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const replay = await t.admin.get<any>(PATH, { nonce, headers: { 'X-Forwarded-For': '203.0.113.30' } });
      expect(replay.body.error.code).toBe('auth_replay_detected');
    }
    expect((await valid('203.0.113.30')).status).toBe(429);
  });

  it('rateLimitWindowSeconds: failures older than the window no longer count', async () => {
    await limits(3, 1, 300);
    await fail('203.0.113.40', 2);
    await sleep(1_100);
    await fail('203.0.113.40', 1);
    expect((await valid('203.0.113.40')).status).toBe(200);
    // within one window the same three failures block
    await fail('203.0.113.41', 3);
    expect((await valid('203.0.113.41')).status).toBe(429);
  });

  it('rateLimitBlockSeconds: the block ends after its time', async () => {
    await limits(3, 60, 1);
    await fail('203.0.113.50', 3);
    const blocked = await valid('203.0.113.50');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('1');
    await sleep(1_100);
    expect((await valid('203.0.113.50')).status).toBe(200);
  });

  it('rateLimitEnabled false lifts the per-key limit only: failing addresses are still blocked, as the catalogue says', async () => {
    const description = kernelSettings.find((d) => d.key === 'rateLimitEnabled')!.description;
    expect(description).toMatch(/Off lifts only that limit: the block of client addresses that keep failing authentication \(rateLimitMaxAttempts\)/);
    await limits(3, 60, 300);
    await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    try {
      await fail('203.0.113.70', 3);
      const blocked = await valid('203.0.113.70');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('rate_limit_exceeded');
    } finally {
      await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: true });
    }
  });

  it('logs one line per address and window, then the block with the count of what went unlogged', async () => {
    await limits(30, 60, 300);
    await fail('203.0.113.60', 29);
    const linesAbout = (): string[] => readFileSync(join(t.dataDir, 'node.log'), 'utf8').split('\n').filter((l) => l.includes('"203.0.113.60"'));
    expect(linesAbout()).toHaveLength(1);
    expect(linesAbout()[0]).toContain('authentication failed');
    await fail('203.0.113.60', 1);
    const lines = linesAbout();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('blocked');
    expect(lines[1]).toContain('"failures":30');
    expect(lines[1]).toContain('"unlogged_failures":28');
  });
});
