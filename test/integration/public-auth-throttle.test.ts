/**
 * Wrong credentials on plugins' public routes are throttled per client address (issue 26): every 401 a public route
 * answers counts, in the same limiter family as the REST API's failed-authentication block (rateLimitMaxAttempts
 * within rateLimitWindowSeconds blocks the address for rateLimitBlockSeconds), with trusted proxies honoured. Here the
 * MCP endpoint's bearer tokens, behind a reverse proxy on loopback that forwards each customer's address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import { configure, createKey, ok, startMcpNode } from './mcp-support.js';

let seller: TestNode;
let token: string;

beforeAll(async () => {
  seller = await startMcpNode();
  await ok(seller, 'PUT', '/api/v1/system/settings', { trusted_proxies: ['127.0.0.1'] });
  await configure(seller, { set: { mode: 'open' } });
  token = (await createKey(seller, { label: 'customer' })).token;
}, 30_000);
afterAll(async () => {
  await seller?.destroy();
});

const keyinfo = (bearer: string, from: string): Promise<Response> =>
  fetch(`${seller.node.baseUrl}/p/mcp-passthrough/admin-keyinfo`, { headers: { authorization: `Bearer ${bearer}`, 'x-forwarded-for': from } });

describe('failed bearer authentications on public routes', () => {
  it('700 different wrong bearers from one address end in 429 with Retry-After; other addresses and valid customers are not affected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 700; i++) {
      const res = await keyinfo(`wrong-${i}-${'x'.repeat(32)}`, '203.0.113.7');
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await res.json()) as any).error.code).toBe('rate_limit_exceeded');
      } else await res.arrayBuffer();
    }
    // The default rateLimitMaxAttempts (10): nine plain 401s, the tenth blocks, everything after is refused unread.
    expect(statuses.slice(0, 9)).toEqual(Array(9).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    // Blocked means blocked: the right bearer from that address is refused too, so guessing learns nothing.
    expect((await keyinfo(token, '203.0.113.7')).status).toBe(429);
    // Another address: its own count.
    expect((await keyinfo('wrong-elsewhere', '203.0.113.8')).status).toBe(401);
    expect((await keyinfo(token, '203.0.113.9')).status).toBe(200);
    // The operator's REST API from the blocked address is a separate count.
    const rest = await fetch(`${seller.node.baseUrl}/api/v1/wallet/info`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(rest.status).toBe(401);
  });
});
