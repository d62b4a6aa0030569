/**
 * PeerRouteFetch (`PeerApi.fetch`): a plugin's own HTTP exchanges with its routes on a peer node. Real servers with
 * node certificates made the way a node makes its own (self-signed): the certificate is pinned on first use, a pinned
 * address that shows another one is refused before a byte of the request is written, connections are kept, and the
 * answer's body streams as it arrives.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateCertificate, type TlsCertificate } from '../../../kernel/net/tls.js';
import { PeerRouteFetch } from '../../../kernel/peers/route-fetch.js';
import { OutboundError } from '../../../sdk/index.js';
import { rejectionOf } from '../../support/errors.js';

interface Served {
  address: string;
  connections: number;
  requests: { method: string; path: string; body: string }[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const echo: Handler = (req, res, body) => {
  res.setHeader('Content-Type', 'text/plain');
  res.end(`${req.method} ${req.url} ${body}`);
};

async function serve(cert: TlsCertificate | null, handler: Handler = echo): Promise<Served> {
  const served = { connections: 0, requests: [] as Served['requests'] };
  const onRequest: http.RequestListener = (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      served.requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      handler(req, res, body);
    });
  };
  const server = cert ? https.createServer({ cert: cert.cert, key: cert.key }, onRequest) : http.createServer(onRequest);
  server.on(cert ? 'secureConnection' : 'connection', () => served.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    ...served,
    get connections() {
      return served.connections;
    },
    address: `${cert ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const refusal = (promise: Promise<unknown>): Promise<OutboundError> => rejectionOf(promise, OutboundError);

describe('PeerRouteFetch: HTTP to a plugin route on a peer node', () => {
  let mine: TlsCertificate;
  let other: TlsCertificate;
  let pins: Map<string, string>;
  let fetcher: PeerRouteFetch;
  const open: Served[] = [];

  beforeAll(async () => {
    [mine, other] = await Promise.all([generateCertificate(''), generateCertificate('')]);
  });
  afterEach(async () => {
    fetcher?.close();
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(() => fetcher?.close());

  const start = async (cert: TlsCertificate | null, handler?: Handler): Promise<Served> => {
    const s = await serve(cert, handler);
    open.push(s);
    pins = new Map();
    fetcher = new PeerRouteFetch({ get: (a) => pins.get(a) ?? null, pin: (a, f) => void (pins.has(a) || pins.set(a, f)) });
    return s;
  };

  it('pins a self-signed certificate on first use and keeps the connection for the next exchanges', async () => {
    const s = await start(mine);
    for (const n of [1, 2, 3]) {
      const res = await fetcher.fetch(s.address, `/p/demo/echo?n=${n}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: `{"n":${n}}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain');
      expect(await res.text()).toBe(`POST /p/demo/echo?n=${n} {"n":${n}}`);
    }
    expect(pins.get(s.address)).toBe(mine.fingerprint);
    expect(s.connections).toBe(1);
  });

  it('refuses an address whose certificate is not the pinned one, before writing the request', async () => {
    const s = await start(other);
    pins.set(s.address, mine.fingerprint);
    const err = await refusal(fetcher.fetch(s.address, '/p/demo/echo', { method: 'POST', body: 'secret' }));
    expect(err.code).toBe('tls');
    expect(err.message).toContain('not the one pinned');
    expect(s.requests).toEqual([]);
    expect(pins.get(s.address)).toBe(mine.fingerprint);
  });

  it('goes to an http address as it is', async () => {
    const s = await start(null);
    const res = await fetcher.fetch(s.address, '/p/demo/echo', { method: 'POST', body: 'plain' });
    expect(await res.text()).toBe('POST /p/demo/echo plain');
    expect(pins.size).toBe(0);
  });

  it('gives the headers at once and the body as it arrives', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const s = await start(mine, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n');
      void released.then(() => res.end('data: two\n\n'));
    });
    const res = await fetcher.fetch(s.address, '/p/demo/stream');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    release();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it("ends with `cancelled` when the caller's signal aborts, and refuses what is not an http(s) address", async () => {
    const s = await start(mine, () => undefined);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    expect((await refusal(fetcher.fetch(s.address, '/p/demo/never', { signal: stop.signal }))).code).toBe('cancelled');
    expect((await refusal(fetcher.fetch('abc.onion', '/p/demo'))).code).toBe('bad_url');
    expect((await refusal(fetcher.fetch('ftp://127.0.0.1:21', '/p/demo'))).code).toBe('bad_url');
  });

  it('sends once more on a new connection when a kept one is closed under it, and never twice on a new one', async () => {
    const perSocket = new WeakMap<object, number>();
    const s = await start(null, (req, res, body) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // The peer closing a kept connection just as it is reused: no answer, the connection gone.
      if (n > 1 || req.url === '/p/demo/reset') req.socket.destroy();
      else echo(req, res, body);
    });
    expect(await (await fetcher.fetch(s.address, '/p/demo/echo', { method: 'POST', body: 'one' })).text()).toBe('POST /p/demo/echo one');
    expect(await (await fetcher.fetch(s.address, '/p/demo/echo', { method: 'POST', body: 'two' })).text()).toBe('POST /p/demo/echo two');
    expect(s.connections).toBe(2);
    expect(s.requests.map((r) => r.body)).toEqual(['one', 'two', 'two']);
    // On a new connection (a fetcher with none kept), a reset is the answer: not sent again.
    fetcher.close();
    fetcher = new PeerRouteFetch({ get: () => null, pin: () => undefined });
    const err = await refusal(fetcher.fetch(s.address, '/p/demo/reset', { method: 'POST', body: 'three' }));
    expect(err.code).toBe('unreachable');
    expect(s.requests.filter((r) => r.body === 'three')).toHaveLength(1);
  });

  it('names a closed port unreachable', async () => {
    const s = await start(mine);
    await s.close();
    const err = await refusal(fetcher.fetch(s.address, '/p/demo/echo'));
    expect(err.code).toBe('unreachable');
    expect(err.message).toContain('ECONNREFUSED');
  });
});
