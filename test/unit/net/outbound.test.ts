import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundFetch, outboundRequest } from '../../../kernel/net/outbound.js';
import { OutboundError, type OutboundRequest } from '../../../sdk/index.js';
import { startCollector, type Collector } from '../../support/collector.js';
import { startFakeSocks, type FakeSocks } from '../../support/fake-socks.js';
import { rejectionOf } from '../../support/errors.js';

const HOST = 'collector.test';

function request(over: Partial<OutboundRequest> = {}): OutboundRequest {
  return {
    method: 'POST',
    url: `https://${HOST}/v1/report`,
    body: '{"hello":1}',
    viaTor: true,
    connectTimeoutMs: 5_000,
    timeoutMs: 10_000,
    maxResponseBytes: 1024,
    ...over,
  };
}

const failure = (promise: Promise<unknown>): Promise<OutboundError> => rejectionOf(promise, OutboundError);

describe('kernel outbound requests through the Tor SOCKS5 proxy', () => {
  let socks: FakeSocks;
  let collector: Collector;
  let proxy: { host: string; port: number };

  beforeAll(async () => {
    socks = await startFakeSocks();
    collector = await startCollector(HOST);
    socks.routes.set(HOST, collector.port);
    proxy = { host: socks.host, port: socks.port };
  });
  afterAll(async () => {
    await collector.close();
    await socks.close();
  });

  it('posts over https to a host named to the proxy (no local DNS), trusting the extra CA', async () => {
    collector.reply.status = 201;
    const res = await outboundRequest(request({ extraCa: collector.ca, headers: { 'User-Agent': 'wallet-node/test' } }), proxy);
    collector.reply.status = 200;
    expect(res).toEqual({ status: 201, body: '{"ok":true}' });
    expect(socks.requests.at(-1)).toEqual({ host: HOST, port: 443, routed: true });
    const got = collector.received.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', path: '/v1/report', body: '{"hello":1}' });
    expect(got.headers).toMatchObject({ host: HOST, 'content-type': 'application/json', 'user-agent': 'wallet-node/test' });
  });

  it('refuses a certificate it was not told to trust, before sending anything', async () => {
    const before = collector.received.length;
    const err = await failure(outboundRequest(request(), proxy));
    expect(err.code).toBe('tls');
    expect(collector.received.length).toBe(before);
  });

  it('gives up connecting after connectTimeoutMs when the circuit never opens', async () => {
    socks.hang.add('slow.test');
    const started = Date.now();
    const err = await failure(outboundRequest(request({ url: 'https://slow.test/v1/report', connectTimeoutMs: 300 }), proxy));
    expect(err.code).toBe('connect_timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('gives up on the whole exchange after timeoutMs when the server never answers', async () => {
    collector.reply.silent = true;
    const started = Date.now();
    const err = await failure(outboundRequest(request({ extraCa: collector.ca, timeoutMs: 400 }), proxy));
    collector.reply.silent = false;
    expect(err.code).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('names an unknown host unreachable and a stopped proxy tor_unavailable', async () => {
    expect((await failure(outboundRequest(request({ url: 'https://nowhere.test/' }), proxy))).code).toBe('unreachable');
    const stopped = await startFakeSocks();
    const closed = { host: stopped.host, port: stopped.port };
    await stopped.close();
    expect((await failure(outboundRequest(request(), closed))).code).toBe('tor_unavailable');
  });

  it('refuses an answer above maxResponseBytes and a URL that is not http(s)', async () => {
    collector.reply.body = 'x'.repeat(5000);
    const err = await failure(outboundRequest(request({ extraCa: collector.ca, maxResponseBytes: 100 }), proxy));
    collector.reply.body = '{"ok":true}';
    expect(err.code).toBe('too_large');
    expect((await failure(outboundRequest(request({ url: 'ftp://collector.test/' }), proxy))).code).toBe('bad_url');
  });

  it('stops at once when the caller cancels', async () => {
    collector.reply.silent = true;
    const controller = new AbortController();
    const pending = outboundRequest(request({ extraCa: collector.ca, signal: controller.signal }), proxy);
    setTimeout(() => controller.abort(), 100);
    const err = await failure(pending);
    collector.reply.silent = false;
    expect(err.code).toBe('cancelled');
  });
});

describe('kernel outbound requests, direct', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ path: req.url }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('reaches a plain http server without the proxy', async () => {
    const unusedProxy = { host: '127.0.0.1', port: 9 };
    const res = await outboundRequest(request({ method: 'GET', body: undefined, url: `http://127.0.0.1:${port}/x?y=1`, viaTor: false }), unusedProxy);
    expect(res).toEqual({ status: 200, body: '{"path":"/x?y=1"}' });
  });
});

describe('kernel outbound fetch: a streamed answer through the Tor SOCKS5 proxy', () => {
  const ONION = 'streamer.onion';
  let socks: FakeSocks;
  let server: Server;
  let release: (() => void) | null = null;
  beforeAll(async () => {
    socks = await startFakeSocks();
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': 'session-1', 'Set-Cookie': ['a=1', 'b=2'] });
        // The first event goes out at once, the second only when the test says: the body must stream.
        res.write(`data: ${JSON.stringify({ method: req.method, auth: req.headers.authorization, body })}\n\n`);
        release = () => res.end('data: last\n\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    socks.routes.set(ONION, (server.address() as AddressInfo).port);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await socks.close();
  });

  it('gives the headers at once and the body as it arrives, over one proxied connection', async () => {
    const before = socks.requests.length;
    const res = await outboundFetch(
      `http://${ONION}/mcp`,
      { method: 'POST', headers: { Authorization: 'Bearer t' }, body: '{"x":1}', viaTor: true, connectTimeoutMs: 5_000 },
      { host: socks.host, port: socks.port },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe('session-1');
    expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(socks.requests.slice(before)).toEqual([{ host: ONION, port: 80, routed: true }]);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(`data: ${JSON.stringify({ method: 'POST', auth: 'Bearer t', body: '{"x":1}' })}\n\n`);
    release!();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('data: last\n\n');
  });

  it('fails with an OutboundError when the proxy cannot reach the name, and when the caller cancels', async () => {
    const proxy = { host: socks.host, port: socks.port };
    expect((await failure(outboundFetch('http://nowhere.onion/', { viaTor: true, connectTimeoutMs: 5_000 }, proxy))).code).toBe('unreachable');
    socks.hang.add('hang.onion');
    const controller = new AbortController();
    const pending = outboundFetch('http://hang.onion/', { viaTor: true, connectTimeoutMs: 5_000, signal: controller.signal }, proxy);
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).code).toBe('cancelled');
  });
});
