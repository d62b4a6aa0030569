import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { onionAddress } from '../../kernel/crypto/onion.js';
import { createDualListener, type DualListener } from '../../kernel/net/listener.js';
import { generateCertificate, type TlsCertificate } from '../../kernel/net/tls.js';
import { TorHealth } from '../../kernel/peers/tor-health.js';
import { HttpTransport } from '../../kernel/peers/transport-http.js';
import { sendWithFallback } from '../../kernel/peers/transport-select.js';
import { TorTransport } from '../../kernel/peers/transport-tor.js';
import { TransportError, type TransportRequest } from '../../kernel/peers/transport.js';
import { startFakeSocks, type FakeSocks } from '../support/fake-socks.js';
import { listenOnLoopback } from '../support/peers.js';

interface Seen {
  method: string;
  url: string;
  host: string | undefined;
  body: string;
  secure: boolean;
}

/** A peer stand-in on the dual listener: echoes what it got, plus a few misbehaving paths. */
async function startPeer(tls: TlsCertificate): Promise<{ listener: DualListener; port: number; seen: Seen[]; connections: () => number; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let connections = 0;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, host: req.headers.host, body, secure: 'encrypted' in req.socket });
      if (req.url === '/hang') return;
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const block = Buffer.alloc(1024 * 1024, 0x61);
        for (let i = 0; i < 11; i++) res.write(block);
        res.end();
        return;
      }
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, length: body.length, secure: 'encrypted' in req.socket }));
    });
  };
  const listener = createDualListener(handler, tls);
  listener.server.on('connection', () => (connections += 1));
  const { port, close } = await listenOnLoopback(listener);
  return { listener, port, seen, connections: () => connections, close };
}

const request = (address: string, over: Partial<TransportRequest> = {}): TransportRequest => ({
  address,
  path: '/peer/v1/message',
  method: 'POST',
  body: JSON.stringify({ hello: 'peer' }),
  timeoutMs: 5_000,
  ...over,
});

async function failure(p: Promise<unknown>): Promise<TransportError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TransportError);
    return err as TransportError;
  }
  throw new Error('expected a TransportError');
}

let tls: TlsCertificate;
let otherTls: TlsCertificate;
let peer: Awaited<ReturnType<typeof startPeer>>;
let http: HttpTransport;

beforeAll(async () => {
  tls = await generateCertificate('');
  otherTls = await generateCertificate('');
  peer = await startPeer(tls);
});
afterAll(async () => {
  await peer.close();
});
afterEach(() => {
  http?.close();
});

describe('HTTP transport', () => {
  it('posts to a loopback peer and reads the answer', async () => {
    http = new HttpTransport();
    const res = await http.send(request(`http://127.0.0.1:${peer.port}`));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ method: 'POST', url: '/peer/v1/message', secure: false });
    expect(res.certFingerprint).toBeUndefined();
    const get = await http.send(request(`http://127.0.0.1:${peer.port}/`, { method: 'GET', path: '/missing', body: undefined }));
    expect(get.status).toBe(404);
  });

  it('reuses one keep-alive connection for sequential requests', async () => {
    http = new HttpTransport();
    const before = peer.connections();
    for (let i = 0; i < 20; i++) expect((await http.send(request(`http://127.0.0.1:${peer.port}`))).status).toBe(200);
    expect(peer.connections() - before).toBe(1);
  });

  it('carries large bodies through the shared port', async () => {
    http = new HttpTransport();
    const body = 'x'.repeat(3 * 1024 * 1024);
    const res = await http.send(request(`http://127.0.0.1:${peer.port}`, { body }));
    expect(JSON.parse(res.body).length).toBe(body.length);
  });

  it('maps refused connections, timeouts and oversized answers', async () => {
    http = new HttpTransport();
    const closed = await startPeer(tls);
    const closedPort = closed.port;
    await closed.close();
    expect((await failure(http.send(request(`http://127.0.0.1:${closedPort}`)))).code).toBe('unreachable');
    const started = Date.now();
    expect((await failure(http.send(request(`http://127.0.0.1:${peer.port}`, { path: '/hang', timeoutMs: 300 })))).code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await failure(http.send(request(`http://127.0.0.1:${peer.port}`, { path: '/huge', method: 'GET', body: undefined })))).code).toBe('too_large');
    expect((await failure(http.send(request('peer.example:80')))).code).toBe('bad_address');
    // the pool still works after those
    expect((await http.send(request(`http://127.0.0.1:${peer.port}`))).status).toBe(200);
  });
});

describe('HTTPS transport on the dual listener', () => {
  it('returns the fingerprint on first use and works with it pinned', async () => {
    http = new HttpTransport();
    const address = `https://127.0.0.1:${peer.port}`;
    const first = await http.send(request(address, { pin: null }));
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body).secure).toBe(true);
    expect(first.certFingerprint).toBe(tls.fingerprint);
    const pinned = await http.send(request(address, { pin: tls.fingerprint.toUpperCase().replace(/(..)(?!$)/g, '$1:') }));
    expect(pinned.status).toBe(200);
    expect(pinned.certFingerprint).toBe(tls.fingerprint);
  });

  it('refuses a wrong pin without sending the body, on fresh and on reused connections', async () => {
    http = new HttpTransport();
    const address = `https://127.0.0.1:${peer.port}`;
    const secret = (tag: string) => JSON.stringify({ secret: `must-not-arrive-${tag}` });
    const fresh = await failure(http.send(request(address, { pin: otherTls.fingerprint, body: secret('fresh') })));
    expect(fresh.code).toBe('tls_pin_mismatch');
    // warm the pool with a good connection, then ask with a wrong pin: the pooled connection is refused too
    await http.send(request(address, { pin: tls.fingerprint }));
    const reused = await failure(http.send(request(address, { pin: otherTls.fingerprint, body: secret('reused') })));
    expect(reused.code).toBe('tls_pin_mismatch');
    await new Promise((r) => setTimeout(r, 50));
    expect(peer.seen.filter((s) => s.body.includes('must-not-arrive'))).toEqual([]);
  });

  it('serves the new certificate after setCertificate', async () => {
    const own = await startPeer(tls);
    try {
      http = new HttpTransport();
      expect((await http.send(request(`https://127.0.0.1:${own.port}`))).certFingerprint).toBe(tls.fingerprint);
      own.listener.setCertificate(otherTls.cert, otherTls.key);
      const again = new HttpTransport();
      expect((await again.send(request(`https://127.0.0.1:${own.port}`))).certFingerprint).toBe(otherTls.fingerprint);
      again.close();
    } finally {
      await own.close();
    }
  });

  it('closeIdle drops idle keep-alive connections of both kinds', async () => {
    const own = await startPeer(tls);
    http = new HttpTransport();
    await http.send(request(`http://127.0.0.1:${own.port}`));
    await http.send(request(`https://127.0.0.1:${own.port}`));
    const closed = new Promise<void>((resolve) => own.listener.server.close(() => resolve()));
    const started = Date.now();
    own.listener.closeIdle();
    await closed;
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('Tor transport through a SOCKS5 proxy', () => {
  const onion = onionAddress(Buffer.alloc(32, 1));
  const deadOnion = onionAddress(Buffer.alloc(32, 2));
  const slowOnion = onionAddress(Buffer.alloc(32, 4));
  let socks: FakeSocks;
  let now = Date.now();
  const settings = { maxFailures: 2, cooldownSeconds: 60 };
  let health: TorHealth;
  let tor: TorTransport;

  beforeAll(async () => {
    socks = await startFakeSocks();
    socks.routes.set(onion, peer.port);
    socks.hang.add(slowOnion);
    health = new TorHealth(() => settings, () => now);
    tor = new TorTransport({ socks: { host: socks.host, port: socks.port }, health });
  });
  afterAll(async () => {
    tor.close();
    await socks.close();
  });

  it('reaches an onion by name (remote resolution), port 80, over a reused tunnel', async () => {
    const before = socks.connections;
    const res = await tor.send(request(`http://${onion}`));
    expect(res.status).toBe(200);
    expect(res.certFingerprint).toBeUndefined();
    expect(socks.requests.at(-1)).toEqual({ host: onion, port: 80, routed: true });
    expect(peer.seen.at(-1)?.host).toBe(onion);
    await tor.send(request(onion));
    await tor.send(request(onion, { method: 'GET', body: undefined, path: '/peer/v1/hello' }));
    expect(socks.connections - before).toBe(1);
  });

  it('keeps an explicit onion port', async () => {
    const other = new TorTransport({ socks: { host: socks.host, port: socks.port }, health });
    await other.send(request(`${onion}:8080`));
    expect(socks.requests.at(-1)).toEqual({ host: onion, port: 8080, routed: true });
    other.close();
  });

  it('cools an onion down after torCircuitMaxFailures failures, then fails fast without the network', async () => {
    expect((await failure(tor.send(request(deadOnion)))).code).toBe('unreachable');
    expect((await failure(tor.send(request(deadOnion)))).code).toBe('unreachable');
    const connections = socks.connections;
    const started = Date.now();
    expect((await failure(tor.send(request(deadOnion)))).code).toBe('tor_cooldown');
    expect(Date.now() - started).toBeLessThan(50);
    expect(socks.connections).toBe(connections);
    now += 60_000;
    expect((await failure(tor.send(request(deadOnion)))).code).toBe('unreachable');
    expect(socks.connections).toBe(connections + 1);
    expect((await failure(tor.send(request(deadOnion)))).code).toBe('tor_cooldown');
    // a working onion is unaffected
    expect((await tor.send(request(onion))).status).toBe(200);
  });

  it('times out when the circuit never opens', async () => {
    const started = Date.now();
    expect((await failure(tor.send(request(slowOnion, { timeoutMs: 300 })))).code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(health.state(slowOnion).failures).toBe(1);
  });

  it('reports tor_unavailable when the proxy is down, without blaming the onion', async () => {
    const gone = await startFakeSocks();
    const port = gone.port;
    await gone.close();
    const fresh = new TorHealth(() => settings);
    const offline = new TorTransport({ socks: { host: '127.0.0.1', port }, health: fresh });
    expect((await failure(offline.send(request(onion)))).code).toBe('tor_unavailable');
    expect(fresh.state(onion).failures).toBe(0);
    offline.close();
  });

  it('falls back from a failing Tor to https with the same body', async () => {
    http = new HttpTransport();
    const body = JSON.stringify({ fallback: Date.now() });
    const result = await sendWithFallback(
      { tor: deadOnion, https: `https://127.0.0.1:${peer.port}`, http: `http://127.0.0.1:${peer.port}` },
      { path: '/peer/v1/message', method: 'POST', body },
      {
        transports: { http, tor },
        mode: 'tor',
        torFallback: true,
        torFallbackRequireEncrypted: true,
        timeouts: { httpMs: 5_000, torMs: 5_000 },
        pins: () => tls.fingerprint,
      },
    );
    expect(result.kind).toBe('https');
    expect(result.usedAddress).toBe(`https://127.0.0.1:${peer.port}`);
    expect(result.response.certFingerprint).toBe(tls.fingerprint);
    expect(peer.seen.at(-1)).toMatchObject({ body, secure: true });
  });
});

describe('keep-alive throughput on loopback', () => {
  it('sustains concurrent traffic over a bounded set of connections', async () => {
    for (const scheme of ['http', 'https'] as const) {
      http = new HttpTransport();
      const address = `${scheme}://127.0.0.1:${peer.port}`;
      const before = peer.connections();
      const total = 1_500;
      const concurrency = 32;
      let next = 0;
      const started = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < total) {
            next += 1;
            const res = await http.send(request(address, { pin: scheme === 'https' ? tls.fingerprint : null }));
            if (res.status !== 200) throw new Error(`status ${res.status}`);
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      expect(peer.connections() - before).toBeLessThanOrEqual(concurrency);
      console.log(`${scheme}: ${total} requests in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)}/s over ${peer.connections() - before} connections`);
      http.close();
    }
  });
});

