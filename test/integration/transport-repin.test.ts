/**
 * Re-pinning a peer's HTTPS certificate, with real nodes over loopback HTTPS: A and B are contacts over https,
 * B's certificate changes at the same address (its hostname setting changes; later it is restored from its seed
 * into a new data directory) and A re-pins on its next ping, because B's signed hello vouches for the new
 * certificate. Whoever else takes B's address (an impostor replaying B's genuine hello under a certificate of
 * its own, another node) is refused with tls_pin_mismatch, and A's pin stays as it was.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { createDualListener, type DualListener } from '../../kernel/net/listener.js';
import { certificateFingerprint, generateCertificate, type TlsCertificate } from '../../kernel/net/tls.js';
import { openHello, type OpenedHello } from '../../kernel/peers/envelope.js';
import { HttpTransport } from '../../kernel/peers/transport-http.js';
import { waitFor, type Envelope } from '../support/api.js';
import { connectOver } from '../support/contacts.js';
import { startTestNode, tempDataDir, type TestNode } from '../support/node.js';

const ENV = { NODE_TOR_ENABLED: 'false' };

/** A's pin for an address, read from its database (the table is written through on every change). */
function pinOf(t: TestNode, address: string): string | null {
  const db = new Database(join(t.dataDir, 'node.db'), { readonly: true });
  try {
    return (db.prepare('SELECT fingerprint FROM peer_tls_pins WHERE address = ?').get(address) as { fingerprint: string } | undefined)?.fingerprint ?? null;
  } finally {
    db.close();
  }
}

const storedFingerprint = (t: TestNode): string => certificateFingerprint(readFileSync(join(t.dataDir, 'tls', 'cert.pem'), 'utf8'));

/** GET /peer/v1/hello over https on a new connection, unpinned: the raw answer, the hello and the certificate seen. */
async function helloOver(address: string): Promise<{ raw: string; hello: OpenedHello; presented: string }> {
  const transport = new HttpTransport();
  try {
    const res = await transport.send({ address, path: '/peer/v1/hello', method: 'GET', timeoutMs: 5_000, pin: null, fresh: true });
    return { raw: res.body, hello: openHello(JSON.parse(res.body)), presented: res.certFingerprint! };
  } finally {
    transport.close();
  }
}

async function ping(a: TestNode): Promise<{ online_status: string; message?: string }> {
  const res = await a.admin.post<Envelope>(`/api/v1/contacts/ping/${encodeURIComponent('peer-b')}`);
  expect(res.status).toBe(200);
  return res.body.data as { online_status: string; message?: string };
}

const repinLines = (t: TestNode): string[] =>
  readFileSync(join(t.dataDir, 'node.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('TLS certificate re-pinned'));

describe('re-pinning a peer whose HTTPS certificate changed', () => {
  const mnemonicB = generateMnemonic();
  let A: TestNode;
  let B: TestNode;
  let portB: number;
  let httpsB: string;

  beforeAll(async () => {
    A = await startTestNode({ env: ENV });
    B = await startTestNode({ env: { ...ENV, RESTORE: mnemonicB } });
    portB = B.node.port;
    httpsB = B.node.addresses().https!;
    await connectOver(A, B, httpsB, A.node.addresses().https!);
  });
  afterAll(async () => {
    await A.destroy();
    await B.destroy();
  });

  it('pins on first use, and the signed hello names the certificate the node serves', async () => {
    expect(httpsB).toBe(`https://127.0.0.1:${portB}`);
    expect(pinOf(A, httpsB)).toBe(storedFingerprint(B));
    const { hello, presented } = await helloOver(httpsB);
    expect(hello.pubkeyHash).toBe(B.node.identity.pubkeyHash);
    expect(hello.tlsFingerprint).toBe(presented);
    expect(hello.tlsFingerprint).toBe(storedFingerprint(B));
  });

  it('re-pins after the hostname setting remade the certificate at the same address, and the ping goes through', async () => {
    const old = pinOf(A, httpsB)!;
    // Naming the host B already answers on keeps its https address and makes a certificate for that host.
    const res = await B.admin.request('PUT', '/api/v1/system/settings', { body: { hostname: `http://127.0.0.1:${portB}` } });
    expect(res.status).toBe(200);
    const served = await waitFor(() => helloOver(httpsB), (h) => h.presented !== old, 'the new certificate on B');
    expect(B.node.addresses().https).toBe(httpsB);
    expect(served.hello.tlsFingerprint).toBe(served.presented);
    expect(served.presented).toBe(storedFingerprint(B));

    const pong = await ping(A);
    expect(pong.online_status).toBe('online');
    expect(pinOf(A, httpsB)).toBe(served.presented);
    const logged = repinLines(A);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(httpsB);
    expect(logged[0]).toContain(old);
    expect(logged[0]).toContain(served.presented);

    // settled: the next pings use the new pin without another re-pin
    expect((await ping(A)).online_status).toBe('online');
    expect(repinLines(A)).toHaveLength(1);
  });

  it("refuses an impostor on B's address that replays B's genuine hello under a certificate of its own; nothing is posted", async () => {
    const pinned = pinOf(A, httpsB)!;
    const genuine = await helloOver(httpsB);
    expect(genuine.hello.tlsFingerprint).toBe(pinned);
    await B.stop();

    const seen: { method: string; url: string }[] = [];
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      seen.push({ method: req.method!, url: req.url! });
      req.resume();
      req.on('end', () => {
        const body = req.method === 'GET' && req.url === '/peer/v1/hello' ? genuine.raw : '{"error":{"code":"nope","message":"impostor"}}';
        res.writeHead(req.method === 'GET' ? 200 : 500, { 'content-type': 'application/json' });
        res.end(body);
      });
    };
    const own = await generateCertificate('');
    const impostor = createDualListener(handler, own);
    await new Promise<void>((resolve, reject) => {
      impostor.server.once('error', reject);
      impostor.server.listen(portB, '127.0.0.1', () => resolve());
    });
    try {
      const pong = await ping(A);
      expect(pong.online_status).toBe('offline');
      expect(pong.message).toContain('tls_pin_mismatch');
      expect(pinOf(A, httpsB)).toBe(pinned);
      // it was asked for its hello (no body) and got nothing else
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((r) => r.method === 'GET' && r.url === '/peer/v1/hello')).toBe(true);
    } finally {
      await new Promise<void>((resolve) => {
        impostor.closeAll();
        impostor.server.close(() => resolve());
      });
    }
  });

  it("refuses another node that took over B's address, and keeps the pin", async () => {
    const pinned = pinOf(A, httpsB)!;
    const other = await startTestNode({ env: { ...ENV, NODE_PORT: String(portB) } });
    try {
      expect(other.node.addresses().https).toBe(httpsB);
      const { hello, presented } = await helloOver(httpsB);
      // an honest node: its hello names its own certificate, but it is not the node A expects there
      expect(hello.tlsFingerprint).toBe(presented);
      expect(hello.pubkeyHash).not.toBe(B.node.identity.pubkeyHash);
      const pong = await ping(A);
      expect(pong.online_status).toBe('offline');
      expect(pong.message).toContain('tls_pin_mismatch');
      expect(pinOf(A, httpsB)).toBe(pinned);
      expect(repinLines(A)).toHaveLength(1);
    } finally {
      await other.destroy();
    }
  });

  it('re-pins when B is restored from its seed into a new data directory at the same address', async () => {
    const pinned = pinOf(A, httpsB)!;
    const restored = await startTestNode({ dataDir: tempDataDir(), env: { ...ENV, RESTORE: mnemonicB, NODE_PORT: String(portB) } });
    try {
      expect(restored.node.identity.pubkeyHash).toBe(B.node.identity.pubkeyHash);
      const fresh = storedFingerprint(restored);
      expect(fresh).not.toBe(pinned);
      const pong = await ping(A);
      // the restored node answers (it has no record of A yet, but the exchange went through)
      expect(pong.online_status).toBe('online');
      expect(pinOf(A, httpsB)).toBe(fresh);
      expect(repinLines(A)).toHaveLength(2);
    } finally {
      await restored.destroy();
    }
  });
});

describe('HTTPS connections around a certificate change (transport and listener)', () => {
  let first: TlsCertificate;
  let second: TlsCertificate;
  let listener: DualListener;
  let address: string;
  let connections = 0;
  const posted: string[] = [];

  beforeAll(async () => {
    [first, second] = await Promise.all([generateCertificate(''), generateCertificate('')]);
    listener = createDualListener((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST') posted.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    }, first);
    listener.server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
    address = `https://127.0.0.1:${(listener.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      listener.closeAll();
      listener.server.close(() => resolve());
    });
  });

  const post = (body: string, pin: string | null, fresh = false) => ({ address, path: '/peer/v1/message', method: 'POST' as const, body, timeoutMs: 5_000, pin, fresh });

  it('tells the fingerprint it serves, and after setCertificate the new one, closing idle connections', async () => {
    expect(listener.fingerprint()).toBe(first.fingerprint);
    const transport = new HttpTransport();
    try {
      expect((await transport.send(post('a', first.fingerprint))).certFingerprint).toBe(first.fingerprint);
      listener.setCertificate(second.cert, second.key);
      expect(listener.fingerprint()).toBe(second.fingerprint);
      // the pooled connection was closed by the server: the same transport sees the new certificate
      expect((await transport.send(post('b', null))).certFingerprint).toBe(second.fingerprint);
    } finally {
      transport.close();
      listener.setCertificate(first.cert, first.key);
    }
  });

  it('a fresh request opens a connection of its own even with a warm pool', async () => {
    const transport = new HttpTransport();
    try {
      await transport.send(post('c', first.fingerprint));
      const before = connections;
      await transport.send(post('d', first.fingerprint));
      expect(connections).toBe(before);
      const fresh = await transport.send(post('e', null, true));
      expect(fresh.certFingerprint).toBe(first.fingerprint);
      expect(connections).toBe(before + 1);
    } finally {
      transport.close();
    }
  });

  it('skips a pooled connection accepted under a superseded pin; a new one is still checked', async () => {
    const transport = new HttpTransport();
    try {
      await transport.send(post('warm', first.fingerprint));
      // new connections get the second certificate; the pooled one keeps the first (no idle close here)
      listener.httpsServer.setSecureContext({ cert: second.cert, key: second.key });
      posted.length = 0;
      const before = connections;
      const res = await transport.send(post('after-repin', second.fingerprint));
      expect(res.certFingerprint).toBe(second.fingerprint);
      expect(connections).toBe(before + 1);
      expect(posted).toEqual(['after-repin']);
      // and a pin that no connection matches is still refused, with nothing written
      const err = await transport.send(post('must-not-arrive', first.fingerprint)).catch((e: { code?: string }) => e.code);
      expect(err).toBe('tls_pin_mismatch');
      expect(posted).toEqual(['after-repin']);
    } finally {
      transport.close();
      listener.setCertificate(first.cert, first.key);
    }
  });
});
