/**
 * The transport settings as a node applies them (Document 2, "Transport timing" and the fallback toggles): Alice's
 * pings to Bob, whom she knows by his onion address, through the tests' SOCKS5 proxy (which maps onions to loopback
 * ports, or refuses or never answers them as a test says) and, on fallback, over Bob's https or http address. The
 * transports themselves are tested in transport.test.ts; here a test fails when the node ignores the setting.
 * Alice's clock is movable, so a circuit cooldown ends at once.
 */
import Database from 'better-sqlite3';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../sdk/index.js';
import { startFakeSocks, type FakeSocks } from '../support/fake-socks.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, ok } from './ledger-support.js';

function movableClock(): Clock & { shift(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, shift: (ms) => void (offset += ms) };
}

describe('transport settings', () => {
  let socks: FakeSocks;
  let A: TestNode;
  let B: TestNode;
  const clock = movableClock();
  const onionOf = (t: TestNode): string => t.node.identity.onionAddress;

  beforeAll(async () => {
    socks = await startFakeSocks();
    const env = { NODE_TOR_ENABLED: 'true', NODE_TOR_SOCKS: `${socks.host}:${socks.port}` };
    [A, B] = await Promise.all([startTestNode({ env, clock }), startTestNode({ env })]);
    socks.routes.set(onionOf(A), A.node.port);
    socks.routes.set(onionOf(B), B.node.port);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(A, B, { addressOfB: onionOf(B), addressOfA: onionOf(A) });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    await socks?.close();
  });

  const ping = async (): Promise<{ online_status: string; message: string }> => ok(A, 'POST', '/api/v1/contacts/ping/Bob');
  const connects = (): number => socks.requests.filter((r) => r.host === onionOf(B)).length;
  const settings = (values: Record<string, unknown>) => ok(A, 'PUT', '/api/v1/system/settings', values);

  it('torCircuitMaxFailures and torCircuitCooldownSeconds: one failure cools the onion down for 60 s of the node clock', async () => {
    // Bob's onion stops answering, and the circuits in use collapse.
    socks.routes.delete(onionOf(B));
    socks.cut();
    await settings({ tor_circuit_max_failures: 1, tor_circuit_cooldown_seconds: 60, tor_failure_transport_fallback: false });
    const before = connects();
    expect(await ping()).toMatchObject({ online_status: 'offline', message: expect.stringMatching(/unreachable/) });
    expect(connects()).toBe(before + 1);
    // At 1 failure (the default is 3) the onion cools down: the next ping does not even ask the proxy.
    expect(await ping()).toMatchObject({ online_status: 'offline', message: expect.stringMatching(/tor_cooldown/) });
    expect(connects()).toBe(before + 1);
    // 61 s later on the node's clock (the default cooldown is 300 s) one probe goes out again, and fails.
    clock.shift(61_000);
    expect((await ping()).message).toMatch(/unreachable/);
    expect(connects()).toBe(before + 2);
    expect((await ping()).message).toMatch(/tor_cooldown/);
  });

  it('torFailureTransportFallback: on, a failing onion falls back to Bob\'s https address; off, the ping fails', async () => {
    await settings({ tor_failure_transport_fallback: true });
    expect(await ping()).toMatchObject({ online_status: 'online' });
    await settings({ tor_failure_transport_fallback: false });
    expect(await ping()).toMatchObject({ online_status: 'offline', message: expect.stringMatching(/tor_cooldown|unreachable/) });
  });

  it('torFallbackRequireEncrypted: with no https address for Bob, the fallback takes his http one only when off', async () => {
    // Alice forgets Bob's https address (edited with her node stopped); his http and onion ones stay.
    await A.stop();
    const db = new Database(join(A.dataDir, 'node.db'));
    try {
      db.prepare('UPDATE contacts SET addr_https = NULL WHERE pubkey_hash = ?').run(B.node.identity.pubkeyHash);
    } finally {
      db.close();
    }
    await A.restart();
    expect((await ok(A, 'GET', '/api/v1/contacts/Bob')).contact.addresses).toMatchObject({ https: null, http: expect.any(String) });
    await settings({ tor_failure_transport_fallback: true, tor_fallback_require_encrypted: true });
    expect(await ping()).toMatchObject({ online_status: 'offline' });
    await settings({ tor_fallback_require_encrypted: false });
    expect(await ping()).toMatchObject({ online_status: 'online' });
  });

  it('torTransportTimeoutSeconds: a circuit that never opens fails after the setting\'s time', async () => {
    socks.hang.add(onionOf(B));
    clock.shift(3_600_000);
    await settings({ tor_transport_timeout_seconds: 10, tor_failure_transport_fallback: false });
    // The default would be 45 s (and the ping would outlast this test).
    // The budget left for the circuit when it is asked for: the setting's 10 s, less what the ping spent first.
    const message = (await ping()).message as string;
    expect(message).toMatch(/^Contact is offline \(timeout: .*\.onion.*within \d+ ms\)$/);
    const budget = Number(/within (\d+) ms/.exec(message)![1]);
    expect(budget).toBeGreaterThan(9_000);
    expect(budget).toBeLessThanOrEqual(10_000);
  }, 30_000);

  it('httpTransportTimeoutSeconds: a peer that never answers fails after the setting\'s time', async () => {
    // A listener that accepts connections and never answers.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      await settings({ http_transport_timeout_seconds: 5 });
      // Adding a contact asks the address for its hello; it gives up after 5 s (the default would be 15 s).
      const started = Date.now();
      const res = await ok(A, 'POST', '/api/v1/contacts', { address, name: 'Silent', currency: 'VWL' });
      const waited = Date.now() - started;
      expect(res.message).toMatch(/not reachable now/);
      expect(waited).toBeGreaterThanOrEqual(4_900);
      expect(waited).toBeLessThan(12_000);
    } finally {
      silent.close();
    }
  }, 30_000);
});
