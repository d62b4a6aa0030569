import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateFingerprint } from '../../kernel/net/tls.js';
import { HttpTransport } from '../../kernel/peers/transport-http.js';
import { startTestNode, type TestNode } from '../support/node.js';

const storedFingerprint = (t: TestNode): string => certificateFingerprint(readFileSync(join(t.dataDir, 'tls', 'cert.pem'), 'utf8'));

async function httpsHealth(t: TestNode, pin: string | null = null) {
  const transport = new HttpTransport();
  try {
    const address = t.node.baseUrl.replace(/^http:/, 'https:');
    return await transport.send({ address, path: '/healthz', method: 'GET', timeoutMs: 5_000, pin });
  } finally {
    transport.close();
  }
}

describe('a node serves HTTP and HTTPS on one port', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('advertises https on the same host and port', () => {
    const a = t.node.addresses();
    expect(a.http).toBe(t.node.baseUrl);
    expect(a.https).toBe(t.node.baseUrl.replace(/^http:/, 'https:'));
  });

  it('answers /healthz over http:// and https://', async () => {
    const plain = await fetch(`${t.node.baseUrl}/healthz`);
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { data: { status: string } }).data.status).toBe('ok');

    const secure = await httpsHealth(t);
    expect(secure.status).toBe(200);
    expect((JSON.parse(secure.body) as { data: { status: string } }).data.status).toBe('ok');
    expect(secure.certFingerprint).toBe(storedFingerprint(t));
    expect((await httpsHealth(t, secure.certFingerprint!)).status).toBe(200);
  });

  it('keeps its certificate across restarts and remakes it when the hostname setting changes', async () => {
    const before = storedFingerprint(t);
    await t.restart();
    expect((await httpsHealth(t)).certFingerprint).toBe(before);

    const res = await t.admin.request('PUT', '/api/v1/system/settings', { body: { hostname: 'http://peer.test:9000' } });
    expect(res.status).toBe(200);
    let seen = before;
    for (let i = 0; i < 100 && seen === before; i++) {
      await new Promise((r) => setTimeout(r, 50));
      seen = (await httpsHealth(t)).certFingerprint!;
    }
    expect(seen).not.toBe(before);
    expect(seen).toBe(storedFingerprint(t));
    const cert = new X509Certificate(readFileSync(join(t.dataDir, 'tls', 'cert.pem'), 'utf8'));
    expect(cert.subjectAltName).toBe('DNS:peer.test');
    expect(t.node.addresses().https).toBe('https://peer.test:9000');
    const pinned = await httpsHealth(t, before).catch((err: { code?: string }) => err.code);
    expect(pinned).toBe('tls_pin_mismatch');
  });

  it('stops promptly with idle keep-alive connections of both kinds open', async () => {
    const transport = new HttpTransport();
    await transport.send({ address: t.node.baseUrl, path: '/healthz', method: 'GET', timeoutMs: 5_000 });
    await transport.send({ address: t.node.baseUrl.replace(/^http:/, 'https:'), path: '/healthz', method: 'GET', timeoutMs: 5_000 });
    // and a raw TLS connection that never sends a request
    const silent = tls.connect({ host: '127.0.0.1', port: t.node.port, rejectUnauthorized: false });
    silent.on('error', () => undefined);
    await new Promise((r) => silent.once('secureConnect', r));
    const started = Date.now();
    await t.stop();
    expect(Date.now() - started).toBeLessThan(1_500);
    transport.close();
    silent.destroy();
    await t.restart();
  });
});
