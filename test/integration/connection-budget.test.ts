/**
 * The connection budget of a client address (kernel/net/listener.ts) set by the operator (issue 30, scope 3):
 * `connectionsPerAddress` for an ordinary address, `connectionsPerProxyAddress` for a shared one (a trusted proxy, or
 * this machine with Tor on); a connection over the budget waits for a slot, and a keep-alive connection of the same
 * address idle two seconds or so gives its slot up (Node's agent lets it go at the announced keep-alive timeout, 3 s,
 * less a second; the node reclaims it at 2.5 s from clients that ignore the timeout).
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

let t: TestNode;
let port: number;

beforeAll(async () => {
  t = await startTestNode();
  port = Number(new URL(t.node.baseUrl).port);
});

afterAll(async () => {
  await t?.destroy();
});

/** GET /healthz on a connection of its own (or of `agent`); resolves with the status. */
function health(agent: http.Agent | false = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

/** Connections that say nothing: each holds a slot until closed (or its first-byte timeout, 10 s). */
async function silent(n: number): Promise<net.Socket[]> {
  return Promise.all(
    Array.from({ length: n }, () => new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s));
      s.on('error', reject);
    })),
  );
}

const settled = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setTimeout(r, ms));
  return done;
};

describe('connectionsPerAddress', () => {
  it('holds a 9th connection from an address at 8 until one of the 8 closes', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { connections_per_address: 8 });
    const held = await silent(8);
    const ninth = health();
    expect(await settled(ninth, 500)).toBe(false);
    held[0]!.destroy();
    expect(await ninth).toBe(200);
    for (const s of held) s.destroy();
  });

  it('idle keep-alive connections of the address give their slot to a new one within two seconds or so', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { connections_per_address: 8 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    // Eight at once: eight connections, all idle in the agent's pool once answered.
    expect(await Promise.all(Array.from({ length: 8 }, () => health(agent)))).toEqual(Array(8).fill(200));
    const started = Date.now();
    expect(await health()).toBe(200);
    // About two seconds after they went idle.
    expect(Date.now() - started).toBeLessThan(4000);
    agent.destroy();
  });
});

describe('connectionsPerProxyAddress', () => {
  it('a trusted proxy’s address has the budget of a shared address', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { connections_per_address: 8, connections_per_proxy_address: 64, trusted_proxies: ['127.0.0.1'] });
    const held = await silent(20);
    expect(await health()).toBe(200);
    for (const s of held) s.destroy();
    await ok(t, 'PUT', '/api/v1/system/settings', { connections_per_proxy_address: 16 });
    const more = await silent(16);
    const over = health();
    expect(await settled(over, 500)).toBe(false);
    more[0]!.destroy();
    expect(await over).toBe(200);
    for (const s of more) s.destroy();
    await ok(t, 'PUT', '/api/v1/system/settings', { connections_per_address: 64, trusted_proxies: [] });
  });
});
