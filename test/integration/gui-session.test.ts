/**
 * The GUI's browser session over real HTTP (issue 17): the page and its security headers, login with the auth code
 * (wrong code 401, lockout 429 with Retry-After), the cookie's flags (Secure only over HTTPS), every REST route
 * answering a session as an admin key with a CSRF token on mutations, logout, the idle timeout on the node's clock,
 * and the event stream delivering a payment as it completes.
 */
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, hashOf, ok, send } from './ledger-support.js';

let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
let A: TestNode;
let B: TestNode;

beforeAll(async () => {
  [A, B] = await Promise.all([startTestNode({ clock }), startTestNode()]);
}, 30_000);
afterAll(async () => {
  offset = 0;
  await Promise.all([A, B].map((t) => t?.destroy()));
});

const url = (t: TestNode, path: string): string => `${t.node.baseUrl}${path}`;
/** A response's JSON envelope (the tests read its fields). */
const envelope = async (res: Response): Promise<any> => res.json();
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function login(t: TestNode): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const res = await fetch(url(t, '/gui/api/session'), json({ auth_code: t.node.identity.authCode }));
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  const body = await envelope(res);
  return { cookie: setCookie.split(';')[0]!, csrf: body.data.csrf_token, setCookie };
}

describe('the GUI session', () => {
  it('serves the page with a strict content security policy and the bundle beside it', async () => {
    const page = await fetch(url(A, '/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('/gui/assets/app.js');
    const js = await fetch(url(A, '/gui/assets/app.js'));
    expect([js.status, js.headers.get('content-type'), js.status === 200 ? '' : await js.text()]).toEqual([200, 'text/javascript; charset=utf-8', '']);
    expect((await fetch(url(A, '/gui/assets/secret.txt'))).status).toBe(404);
    // Names every object answers to are no assets either (they were a 500: a lookup that read Object.prototype).
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const res = await fetch(url(A, `/gui/assets/${name}`));
      expect([name, res.status, (await envelope(res)).error.code]).toEqual([name, 404, 'unknown_action']);
    }
  });

  it('a wrong auth code is 401; five from one address lock it out with 429 and Retry-After, even for the right code', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(url(B, '/gui/api/session'), json({ auth_code: `wrong-${i}` }));
      expect([res.status, (await envelope(res)).error.code]).toEqual([401, 'invalid_auth_code']);
    }
    const locked = await fetch(url(B, '/gui/api/session'), json({ auth_code: B.node.identity.authCode }));
    expect(locked.status).toBe(429);
    expect((await envelope(locked)).error.code).toBe('rate_limit_exceeded');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('the cookie is HttpOnly, SameSite=Strict and named for the node; over HTTPS __Host- prefixed and Secure', async () => {
    const { setCookie } = await login(A);
    const name = `wn_session_${A.node.identity.pubkeyHash.slice(0, 12)}`;
    expect(setCookie).toBe(`${name}=${setCookie.slice(name.length + 1, name.length + 44)}; HttpOnly; SameSite=Strict; Path=/`);
    expect(setCookie).toMatch(/^wn_session_[0-9a-f]{12}=[A-Za-z0-9_-]{43}; /);
    // Cookies are not kept apart by port: named for the node, another node on this host (whose key differs) does
    // not overwrite this one's session.
    const overTls = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        `https://127.0.0.1:${A.node.port}/gui/api/session`,
        { method: 'POST', rejectUnauthorized: false, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(String(res.headers['set-cookie']));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ auth_code: A.node.identity.authCode }));
    });
    // Over HTTPS the __Host- prefix: the browser keeps the cookie only for this host, Secure, on path /.
    expect(overTls).toMatch(new RegExp(`^__Host-${name}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/; Secure$`));
  });

  it('a session answers every REST route as admin; a mutation without the CSRF token is 403 and changes nothing', async () => {
    const { cookie, csrf } = await login(A);
    const info = await fetch(url(A, '/api/v1/wallet/info'), { headers: { cookie } });
    expect(info.status).toBe(200);
    expect((await envelope(info)).data.public_key_hash).toBe(A.node.identity.pubkeyHash);
    const put = (headers: Record<string, string>) =>
      fetch(url(A, '/api/v1/system/settings'), { method: 'PUT', headers: { cookie, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ name: 'Alice GUI' }) });
    const refused = await put({});
    expect([refused.status, (await envelope(refused)).error.code]).toEqual([403, 'csrf_required']);
    expect((await put({ 'X-CSRF-Token': 'not-it' })).status).toBe(403);
    const settings = async () => (await envelope(await fetch(url(A, '/api/v1/system/settings'), { headers: { cookie } }))).data;
    expect(JSON.stringify(await settings())).not.toContain('Alice GUI');
    expect((await put({ 'X-CSRF-Token': csrf })).status).toBe(200);
    expect(JSON.stringify(await settings())).toContain('Alice GUI');
    // Without a cookie nor a signature, the REST API is closed as before.
    expect((await fetch(url(A, '/api/v1/wallet/info'))).status).toBe(401);
    const session = await envelope(await fetch(url(A, '/gui/api/session'), { headers: { cookie } }));
    expect(session.data).toMatchObject({ authenticated: true, csrf_token: csrf, idle_timeout_seconds: 900, consent_required: true });
  });

  it('a secret-showing route needs the auth code again within the minute before', async () => {
    const { cookie, csrf } = await login(A);
    const headers = { cookie, 'Content-Type': 'application/json', 'X-CSRF-Token': csrf };
    const created = await envelope(
      await fetch(url(A, '/api/v1/payback-methods'), {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'paypal', label: 'pp', currency: 'USD', fields: { identifier_type: 'email', identifier: 'a@example.com' } }),
      }),
    );
    const reveal = () => fetch(url(A, `/api/v1/payback-methods/${created.data.method_id}/reveal`), { headers: { cookie } });
    const refused = await reveal();
    expect([refused.status, (await envelope(refused)).error.code]).toEqual([403, 'confirmation_required']);
    const wrong = await fetch(url(A, '/gui/api/confirm'), { method: 'POST', headers, body: JSON.stringify({ auth_code: 'nope' }) });
    expect(wrong.status).toBe(401);
    const confirmed = await fetch(url(A, '/gui/api/confirm'), { method: 'POST', headers, body: JSON.stringify({ auth_code: A.node.identity.authCode }) });
    expect((await envelope(confirmed)).data).toEqual({ confirmed_for_seconds: 60 });
    const shown = await reveal();
    expect(shown.status).toBe(200);
    expect((await envelope(shown)).data.method.fields).toMatchObject({ identifier: 'a@example.com' });
    offset += 61_000;
    expect((await reveal()).status).toBe(403);
    offset = 0;
  });

  it('logout needs the CSRF token and ends the session; an idle session ends after 15 minutes on the node clock', async () => {
    const first = await login(A);
    expect((await fetch(url(A, '/gui/api/session'), { method: 'DELETE', headers: { cookie: first.cookie } })).status).toBe(403);
    const out = await fetch(url(A, '/gui/api/session'), { method: 'DELETE', headers: { cookie: first.cookie, 'X-CSRF-Token': first.csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    const after = await fetch(url(A, '/api/v1/wallet/info'), { headers: { cookie: first.cookie } });
    expect([after.status, (await envelope(after)).error.code]).toEqual([401, 'session_expired']);

    const second = await login(A);
    offset = 14 * 60_000;
    expect((await fetch(url(A, '/api/v1/wallet/info'), { headers: { cookie: second.cookie } })).status).toBe(200);
    offset += 16 * 60_000;
    const idle = await fetch(url(A, '/gui/api/session'), { headers: { cookie: second.cookie } });
    expect([idle.status, (await envelope(idle)).error.code]).toEqual([401, 'session_expired']);
    offset = 0;
  });

  it('the event stream delivers a payment as it completes', async () => {
    await connect(A, B);
    const { cookie } = await login(A);
    const res = await fetch(url(A, '/gui/api/events'), { headers: { cookie } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const txid = await send(B, 'Alice', '1.5');
    const deadline = Date.now() + 8000;
    while (!text.includes(txid) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toContain('event: hello\ndata: {"dlq":0}');
    const event = text.split('\n\n').find((e) => e.includes(txid))!;
    expect(event.startsWith('event: transaction\n')).toBe(true);
    expect(JSON.parse(event.split('data: ')[1]!)).toMatchObject({ event: 'ledger.tx_final', payload: { txid, status: 'completed' }, dlq: 0 });
  });
});

describe('the dead letter badge', () => {
  it('a message parked in the dead letter queue reaches an open event stream with the pending count', async () => {
    // Retries 1 ms apart (kernel/peers/outbox.ts): the notice reaches the queue at once.
    process.env.NODE_PEER_RETRY_BASE_MS = '1';
    const [C, D] = await Promise.all([startTestNode(), startTestNode()]);
    try {
      await connect(C, D, { nameOfB: 'Dora', nameOfA: 'Cleo' });
      await ok(C, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD'] });
      const { cookie } = await login(C);
      const res = await fetch(url(C, '/gui/api/events'), { headers: { cookie } });
      const reader = res.body!.getReader();
      await D.stop();
      // A request for another currency to a contact that is down: its retries end in the dead letter queue.
      await ok(C, 'POST', `/api/v1/contacts/${hashOf(D)}/currencies`, { currency: 'USD', fee: 0, credit: 5 });
      let text = '';
      const deadline = Date.now() + 15_000;
      while (!text.includes('event: dlq') && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      await reader.cancel();
      const event = text.split('\n\n').find((e) => e.startsWith('event: dlq'))!;
      expect(JSON.parse(event.split('data: ')[1]!)).toMatchObject({ event: 'dlq.changed', payload: { pending: 1 }, dlq: 1 });
    } finally {
      delete process.env.NODE_PEER_RETRY_BASE_MS;
      await Promise.all([C, D].map((t) => t.destroy()));
    }
  });
});
