/**
 * A browser session's power is bounded (issue 26): routes that show secrets or widen power are marked `confirm` on
 * their declaration, and the kernel refuses them to a GUI session that did not enter the auth code again within the
 * minute, whatever spelling of the path reached the route; a settings change is refused only when it touches a
 * security setting. An API key is not asked (its holder was given that power). The event stream ends when its session
 * idles out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../sdk/index.js';
import { ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';

let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
let A: TestNode;

beforeAll(async () => {
  A = await startTestNode({ clock });
}, 30_000);
afterAll(async () => {
  offset = 0;
  await A?.destroy();
});

const url = (path: string): string => `${A.node.baseUrl}${path}`;

interface Session {
  cookie: string;
  csrf: string;
  headers: Record<string, string>;
}

async function login(): Promise<Session> {
  const res = await fetch(url('/gui/api/session'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ auth_code: A.node.identity.authCode }) });
  expect(res.status).toBe(200);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = ((await res.json()) as any).data.csrf_token as string;
  return { cookie, csrf, headers: { cookie, 'Content-Type': 'application/json', 'X-CSRF-Token': csrf } };
}

async function confirm(s: Session): Promise<void> {
  const res = await fetch(url('/gui/api/confirm'), { method: 'POST', headers: s.headers, body: JSON.stringify({ auth_code: A.node.identity.authCode }) });
  expect(res.status).toBe(200);
}

/** Status and error code (or null) of a raw request; the path is sent exactly as written. */
async function attempt(s: Session, method: string, path: string, body?: unknown): Promise<[number, string | null]> {
  const res = await fetch(url(path), { method, headers: s.headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const json = (await res.json().catch(() => null)) as any;
  return [res.status, json?.error?.code ?? null];
}

const keyCount = async (): Promise<number> => (await ok(A, 'GET', '/api/v1/keys')).keys.length;

describe('routes marked confirm, from a GUI session', () => {
  it('a reveal is refused to an unconfirmed session under every spelling of its path, and shown after the confirmation', async () => {
    const s = await login();
    const method = await ok(A, 'POST', '/api/v1/payback-methods', { type: 'paypal', label: 'pp', currency: 'USD', fields: { identifier_type: 'email', identifier: 'a@example.com' } });
    const id = method.method_id as string;
    const spellings = [
      `/api/v1/payback-methods/${id}/reveal`,
      `/api/v1/payback-methods/${id}/reveal/`,
      `/api/v1/payback-methods/${id}/reveal?x=1`,
      `/api/v1/payback-methods/${id}/reveal/?x=1`,
      `/api/v1/payback-methods/${id}//reveal`,
      `/api/v1/payback-methods/${id}/%72eveal`,
      `/api/v1/payback-methods/${encodeURIComponent(id)}/reveal`,
      `/api/v1/payback-methods/${id}/rev%65al/`,
      `//api/v1/payback-methods//${id}/reveal`,
      `/api/v1/payback-methods/${id}/x/../reveal`,
    ];
    // Every spelling reaches the route (the path is normalised before routing), and the route's own gate refuses.
    for (const path of spellings) expect([path, ...(await attempt(s, 'GET', path))]).toEqual([path, 403, 'confirmation_required']);
    await confirm(s);
    for (const path of spellings) expect([path, (await attempt(s, 'GET', path))[0]]).toEqual([path, 200]);
    // An API key is not asked: whoever holds one was given the power.
    expect((await ok(A, 'GET', `/api/v1/payback-methods/${id}/reveal`)).method.fields.identifier).toBe('a@example.com');
    // A signature covers the path as the client sent it, before it is normalised for routing.
    expect((await ok(A, 'GET', `/api/v1/payback-methods/${id}//%72eveal`)).method.fields.identifier).toBe('a@example.com');
  });

  it('an admin key is not minted from an unconfirmed session; it is after the confirmation', async () => {
    const s = await login();
    const before = await keyCount();
    expect(await attempt(s, 'POST', '/api/v1/keys', { name: 'from-gui', permissions: ['admin'] })).toEqual([403, 'confirmation_required']);
    expect(await attempt(s, 'POST', '/api/v1/keys/', { name: 'from-gui', permissions: ['admin'] })).toEqual([403, 'confirmation_required']);
    expect(await keyCount()).toBe(before);
    await confirm(s);
    expect((await attempt(s, 'POST', '/api/v1/keys', { name: 'from-gui', permissions: ['admin'] }))[0]).toBe(201);
    expect(await keyCount()).toBe(before + 1);
    offset += 61_000;
    expect(await attempt(s, 'POST', '/api/v1/keys', { name: 'late', permissions: ['wallet:read'] })).toEqual([403, 'confirmation_required']);
    offset = 0;
  });

  it('plugins, security settings and backups need the confirmation; ordinary settings do not', async () => {
    const s = await login();
    expect(await attempt(s, 'POST', '/api/v1/plugins', { manifest: '{}', entry: '', signature: null })).toEqual([403, 'confirmation_required']);
    expect(await attempt(s, 'POST', '/api/v1/plugins/mcp-passthrough/enable')).toEqual([403, 'confirmation_required']);
    expect(await attempt(s, 'POST', '/api/v1/plugins/mcp-passthrough/public-routes', { enabled: true })).toEqual([403, 'confirmation_required']);
    expect((await attempt(s, 'POST', '/api/v1/plugins/mcp-passthrough/public-routes', { enabled: false }))[0]).toBe(200);
    for (const change of [{ trusted_proxies: ['10.0.0.1'] }, { api_cors_allowed_origins: '*' }, { rate_limit_max_attempts: 1000 }, { peer_private_addresses_allowed: true }, { name: 'x', rate_limit_enabled: false }]) {
      expect(await attempt(s, 'PUT', '/api/v1/system/settings', change), JSON.stringify(change)).toEqual([403, 'confirmation_required']);
    }
    expect(await attempt(s, 'POST', '/api/v1/system/settings/reset', { confirm: true })).toEqual([403, 'confirmation_required']);
    const settings = (await ok(A, 'GET', '/api/v1/system/settings')).settings;
    expect(settings).toMatchObject({ trusted_proxies: [], api_cors_allowed_origins: '', rate_limit_max_attempts: 10, rate_limit_enabled: true });
    expect((await attempt(s, 'PUT', '/api/v1/system/settings', { name: 'Alice' }))[0]).toBe(200);
    const backup = (await ok(A, 'POST', '/api/v1/backup/create')).filename as string;
    expect(await attempt(s, 'DELETE', `/api/v1/backup/${backup}`)).toEqual([403, 'confirmation_required']);
    expect(await attempt(s, 'POST', '/api/v1/backup/cleanup')).toEqual([403, 'confirmation_required']);
    expect(await attempt(s, 'POST', '/api/v1/backup/restore', {})).toEqual([403, 'confirmation_required']);
    expect((await ok(A, 'GET', '/api/v1/backup/list')).backups.map((b: any) => b.filename)).toContain(backup);
    await confirm(s);
    expect((await attempt(s, 'PUT', '/api/v1/system/settings', { rate_limit_max_attempts: 20 }))[0]).toBe(200);
    expect((await attempt(s, 'DELETE', `/api/v1/backup/${backup}`))[0]).toBe(200);
  });

  it('a request another origin makes with the session cookie is refused (Sec-Fetch-Site)', async () => {
    const s = await login();
    const res = await fetch(url('/api/v1/wallet/info'), { headers: { cookie: s.cookie, 'Sec-Fetch-Site': 'cross-site' } });
    expect([res.status, ((await res.json()) as any).error.code]).toEqual([403, 'csrf_required']);
    expect((await fetch(url('/api/v1/wallet/info'), { headers: { cookie: s.cookie, 'Sec-Fetch-Site': 'same-origin' } })).status).toBe(200);
  });
});

describe('the event stream', () => {
  it('ends when its session idles out, though the stream itself stays open', async () => {
    const s = await login();
    const res = await fetch(url('/gui/api/events'), { headers: { cookie: s.cookie } });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: hello');
    offset += 16 * 60_000;
    // The next event the stream would carry (a contact request from another node) finds the session idle: the stream
    // ends instead, and the event does not go out.
    const B = await startTestNode();
    try {
      await connect(B, A, { nameOfB: 'Alice', nameOfA: 'Bob' });
      let text = '';
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        text += new TextDecoder().decode(next.value);
      }
      expect(text).not.toContain('event: contact');
    } finally {
      offset = 0;
      await B.destroy();
    }
    const after = await fetch(url('/gui/api/session'), { headers: { cookie: s.cookie } });
    expect(after.status).toBe(401);
  });
});
