/**
 * Contacts over each transport, end to end through the REST API: Tor through a SOCKS5 server that maps
 * `.onion` names to loopback ports, and HTTPS with the self-signed certificate pinned on first use.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSocks, type FakeSocks } from '../support/fake-socks.js';
import type { Envelope } from '../support/api.js';
import { connectOver } from '../support/contacts.js';
import { startTestNode, type TestNode } from '../support/node.js';

describe('contacts over Tor (SOCKS5 mapping .onion names to loopback ports)', () => {
  let socks: FakeSocks;
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    socks = await startFakeSocks();
    const env = { NODE_TOR_ENABLED: 'true', NODE_TOR_SOCKS: `${socks.host}:${socks.port}` };
    A = await startTestNode({ env });
    B = await startTestNode({ env });
    socks.routes.set(A.node.identity.onionAddress, A.node.port);
    socks.routes.set(B.node.identity.onionAddress, B.node.port);
  });
  afterAll(async () => {
    await A.destroy();
    await B.destroy();
    await socks.close();
  });

  it('publishes the onion address and reaches the peer by it', async () => {
    expect(A.node.addresses().tor).toBe(A.node.identity.onionAddress);
    await connectOver(A, B, B.node.identity.onionAddress, A.node.identity.onionAddress);
    const routed = socks.requests.filter((r) => r.routed).map((r) => r.host);
    expect(routed).toContain(B.node.identity.onionAddress);
    expect(routed).toContain(A.node.identity.onionAddress);
  });

  it('pings over Tor: online, with the credit the peer extends', async () => {
    const before = socks.requests.length;
    const ping = await A.admin.post<Envelope>(`/api/v1/contacts/ping/${encodeURIComponent('peer-b')}`);
    expect(ping.status).toBe(200);
    expect(ping.body.data).toMatchObject({ contact_name: 'peer-b', online_status: 'online', my_available_credit: { VWL: '20' } });
    // Connections are pooled per onion: the ping may reuse a tunnel, but none went anywhere but the onion.
    expect(socks.requests.slice(before).every((r) => r.host.endsWith('.onion'))).toBe(true);
  });
});

describe('contacts over HTTPS with the self-signed certificate', () => {
  let C: TestNode;
  let D: TestNode;

  beforeAll(async () => {
    C = await startTestNode({ env: { NODE_TOR_ENABLED: 'false' } });
    D = await startTestNode({ env: { NODE_TOR_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await C.destroy();
    await D.destroy();
  });

  it('connects by https address and pins the certificate on first use', async () => {
    const httpsD = D.node.addresses().https!;
    const httpsC = C.node.addresses().https!;
    expect(httpsD).toBe(D.node.baseUrl.replace('http:', 'https:'));
    await connectOver(C, D, httpsD, httpsC);
    const db = new Database(join(C.dataDir, 'node.db'), { readonly: true });
    try {
      const pin = db.prepare('SELECT fingerprint FROM peer_tls_pins WHERE address = ?').get(httpsD) as { fingerprint: string } | undefined;
      expect(pin?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
    const ping = await C.admin.post<Envelope>(`/api/v1/contacts/ping/${encodeURIComponent('peer-b')}`);
    expect(ping.body.data).toMatchObject({ online_status: 'online', my_available_credit: { VWL: '20' } });
  });
});
