import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../kernel/auth/verifier.js';
import { PLUGIN_CONTENT_POLICY } from '../../kernel/http/plugin-content.js';
import { fixturePlugin } from '../support/fixture-plugin.js';
import { startTestNode, tempDataDir, type TestNode } from '../support/node.js';

/**
 * A REST request to a route without parameters is served straight from node:http (kernel/http/app.ts, #serveFast);
 * one that carries an `Origin` goes through the Koa pipeline. A plugin's public route is served the fast way with or
 * without an `Origin`; its path spelled with `//`, which only Koa normalises, takes the Koa pipeline. With no allowed CORS origin (the default), an `Origin`
 * changes nothing in the answer, so the two paths must answer the same bytes: status line, headers in order, body
 * (the values that differ per answer, date, request id and timestamp, masked).
 */
interface Raw {
  status: string;
  headers: string[];
  body: string;
}

let t: TestNode;
let reader: { keyId: string; secret: string };
beforeAll(async () => {
  const dataDir = tempDataDir();
  writeFileSync(join(dataDir, 'plugins-state.json'), JSON.stringify({ fixture: { enabled: true } }));
  t = await startTestNode({ dataDir, extraBuiltins: [fixturePlugin] });
  const res = await t.admin.post<{ data: { key_id: string; secret: string } }>('/api/v1/keys', { name: 'reader', permissions: ['wallet:read'] });
  reader = { keyId: res.body.data.key_id, secret: res.body.data.secret };
});
afterAll(() => t.destroy());

interface Sent {
  method: string;
  path: string;
  body?: string;
  key?: { keyId: string; secret: string };
  /** Breaks the signature after signing. */
  tamper?: boolean;
}

function send(s: Sent, extra: Record<string, string>): Promise<Raw> {
  const key = s.key ?? { keyId: t.node.cliCredentials().key_id, secret: t.node.cliCredentials().secret };
  const body = s.body ?? '';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  const signature = signRequest(key.secret, s.method, s.path.split('?')[0]!, timestamp, nonce, body);
  const headers: Record<string, string> = {
    'X-API-Key': key.keyId,
    'X-API-Timestamp': timestamp,
    'X-API-Nonce': nonce,
    'X-API-Signature': s.tamper ? signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) : signature,
    ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}),
    ...extra,
  };
  const url = new URL(s.path, t.node.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: s.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const masked: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          masked.push(`${name}: ${/^(date|x-request-id)$/i.test(name) ? '*' : res.rawHeaders[i + 1]}`);
        }
        resolve({
          status: `${res.statusCode} ${res.statusMessage}`,
          headers: masked,
          body: Buffer.concat(chunks)
            .toString('utf8')
            .replace(/"timestamp":"[^"]*"/g, '"timestamp":"*"')
            .replace(/req_[0-9a-f]{16}/g, 'req_*'),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The same request by both paths: the fast one (no Origin) and Koa's (an Origin no setting allows). */
async function bothWays(s: Sent): Promise<Raw> {
  const fast = await send(s, {});
  const koa = await send(s, { Origin: 'https://elsewhere.example' });
  expect(fast).toEqual(koa);
  return fast;
}

describe('the fast path answers as the Koa pipeline does', () => {
  it('a signed status read', async () => {
    const r = await bothWays({ method: 'GET', path: '/api/v1/system/status' });
    expect(r.status).toBe('200 OK');
    expect(r.headers).toContain('X-Content-Type-Options: nosniff');
    expect(r.headers).toContain('Content-Type: application/json; charset=utf-8');
  });

  it('a plugin route, its query and its isolating content policy', async () => {
    const r = await bothWays({ method: 'GET', path: '/api/v1/plugins/fixture/echo?a=1&a=2&b=x', key: reader });
    expect(r.status).toBe('200 OK');
    expect(JSON.parse(r.body).data.query).toEqual({ a: '2', b: 'x' });
    expect(r.headers.some((h) => h.startsWith('Content-Security-Policy: sandbox'))).toBe(true);
  });

  it('a query read as Koa reads it: repeated keys, plus signs, a malformed escape, over a thousand keys', async () => {
    const r = await bothWays({ method: 'GET', path: '/api/v1/plugins/fixture/echo?b=1&a=x+y&b=3&n=%C3%28', key: reader });
    expect(JSON.parse(r.body).data.query).toEqual({ b: '3', a: 'x y', n: '\ufffd(' });
    // Koa 3 reads every key (URLSearchParams); node:querystring would stop at 1,000.
    const many = Array.from({ length: 1001 }, (_, i) => `k${i}=${i}`).join('&');
    const all = await bothWays({ method: 'GET', path: `/api/v1/plugins/fixture/echo?${many}`, key: reader });
    expect(Object.keys(JSON.parse(all.body).data.query)).toHaveLength(1001);
  });

  it('a JSON body, and a body that is not JSON', async () => {
    expect((await bothWays({ method: 'POST', path: '/api/v1/plugins/fixture/echo', body: '{"n":1.50}', key: reader })).status).toBe('200 OK');
    const bad = await bothWays({ method: 'POST', path: '/api/v1/plugins/fixture/echo', body: '{"n":', key: reader });
    expect(bad.status).toBe('400 Bad Request');
    expect(JSON.parse(bad.body).error.code).toBe('invalid_json');
  });

  it('refusals: a bad signature, a missing scope', async () => {
    const unsigned = await bothWays({ method: 'GET', path: '/api/v1/system/status', tamper: true });
    expect(unsigned.status).toBe('401 Unauthorized');
    expect(JSON.parse(unsigned.body).error.code).toBe('auth_invalid_signature');
    const denied = await bothWays({ method: 'POST', path: '/api/v1/plugins/fixture/send', key: reader });
    expect(denied.status).toBe('403 Forbidden');
    expect(JSON.parse(denied.body).error.code).toBe('permission_denied');
  });

  it('routes with parameters, found and not found', async () => {
    const found = await bothWays({ method: 'GET', path: `/api/v1/keys/${reader.keyId}` });
    expect(found.status).toBe('200 OK');
    expect(JSON.parse(found.body).data.key.key_id).toBe(reader.keyId);
    const missing = await bothWays({ method: 'GET', path: '/api/v1/keys/wn_nosuchkey' });
    expect(missing.status).toBe('404 Not Found');
  });

  it('paths the router does not take as sent: a 404, an escape, a trailing slash', async () => {
    expect((await bothWays({ method: 'GET', path: '/api/v1/system/nothing-here' })).status).toBe('404 Not Found');
    // Signed as sent; Koa decodes `%75` to `u` before routing, and the fast path leaves such a path to Koa.
    expect((await bothWays({ method: 'GET', path: '/api/v1/system/stat%75s' })).status).toBe('200 OK');
    expect((await bothWays({ method: 'GET', path: '/api/v1/system/status/' })).status).toBe('200 OK');
  });

  it("a plugin's public routes: their own replies (JSON, an event stream, a page), as Koa writes them", async () => {
    // A doubled slash is a spelling only Koa's pipeline normalises: the same route, through Koa.
    const publicBothWays = async (s: Sent): Promise<Raw> => {
      const fast = await send(s, {});
      const koa = await send({ ...s, path: s.path.replace('/p/', '/p//') }, {});
      expect(fast).toEqual(koa);
      return fast;
    };
    const raw = await publicBothWays({ method: 'POST', path: '/p/fixture/ping/raw', body: '{"a":1}' });
    expect(raw.status).toBe('202 Accepted');
    expect(raw.headers).toEqual(expect.arrayContaining(['X-Fixture: raw', 'Content-Type: application/json; charset=utf-8', 'Content-Length: 19']));
    expect(JSON.parse(raw.body)).toEqual({ raw: '{"a":1}' });
    const stream = await publicBothWays({ method: 'GET', path: '/p/fixture/ping/stream/3' });
    expect(stream.headers).toEqual(expect.arrayContaining(['Content-Type: text/event-stream; charset=utf-8', 'Transfer-Encoding: chunked']));
    expect(stream.body).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    const page = await publicBothWays({ method: 'GET', path: '/p/fixture/ping/page' });
    expect(page.headers).toContain('Content-Type: text/html; charset=utf-8');
    expect(page.headers).toContain(`Content-Security-Policy: ${PLUGIN_CONTENT_POLICY}`);
    expect((await publicBothWays({ method: 'GET', path: '/p/fixture/ping/nothing' })).status).toBe('404 Not Found');
  });

  it("a route's own reply (a RawReply), written by Koa's rules on both paths", async () => {
    const r = await bothWays({ method: 'POST', path: '/api/v1/payback-methods', body: '[]' });
    expect(r.status).toBe('400 Bad Request');
    expect(JSON.parse(r.body).data.errors[0].field).toBe('body');
  });
});
