import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, definePlugin, lookup, RawReply, Reply, type AuthCandidate, type AuthInfo, type RouteRequest } from '../../sdk/index.js';
import { booleanSchema, integerSchema, objectOf, stringSchema } from '../../sdk/schema.js';
import { eventStream } from './events.js';
import { CONFIRMED_MS, GuiSessions } from './sessions.js';

/**
 * The operator's web GUI (issue 17). A single-page app (web/, Preact, bundled by scripts/build-gui.js) served from the
 * node's own port at `/`, and a browser session: `POST /gui/api/session {auth_code}` sets an HttpOnly, SameSite=Strict
 * cookie (Secure over HTTPS) and returns a CSRF token. With that cookie every `/api/v1/*` route answers as for an admin
 * key (the operator proved the auth code): the same routes, validation and services as a signed request; a mutation
 * needs the `X-CSRF-Token` header too. docs/gui.md.
 */
const IDLE_MINUTES = 15;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The body of a login and of a confirmation: the node's auth code. */
const AUTH_CODE_BODY = { type: 'object', required: ['auth_code'], properties: { auth_code: { type: 'string', maxLength: 200 } } };
/** `Sec-Fetch-Site` values of a request the GUI's own page makes (or the operator typed): none other uses the session. */
const OWN_SITE = new Set(['same-origin', 'none']);
const ASSETS: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
/** What a session's answers tell the page: its CSRF token, the idle timeout, whether to ask the analytics question. */
const sessionResponse = objectOf({ csrf_token: stringSchema, idle_timeout_seconds: integerSchema, consent_required: booleanSchema });
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

/** The built bundle: beside the compiled plugin (dist), or under dist/ when the plugin runs from its sources. */
function bundleDir(): string | null {
  for (const rel of ['./web/', '../../dist/builtin-plugins/gui/web/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}app.js`)) return dir;
  }
  return null;
}

function cookieOf(headers: AuthCandidate['headers'], name: string): string | null {
  const raw = headers.cookie;
  for (const part of (Array.isArray(raw) ? raw.join(';') : (raw ?? '')).split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

const header = (headers: AuthCandidate['headers'], name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export default definePlugin({
  setup(ctx) {
    const sessions = new GuiSessions(() => ctx.clock.now(), () => IDLE_MINUTES * 60_000);
    // Cookies are not kept apart by port: two nodes on one host would overwrite each other's session under one name.
    // Over HTTPS the `__Host-` prefix binds the cookie to this host, Secure and path `/` (docs/security.md).
    const cookieName = (secure: boolean | undefined): string => `${secure ? '__Host-' : ''}wn_session_${ctx.kernel.node.pubkeyHash.slice(0, 12)}`;
    const cookieFlags = (secure: boolean | undefined): string => `HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
    const dir = bundleDir();
    const files = new Map<string, Buffer>();
    const file = (name: string): Buffer => {
      if (!dir) throw new ApiError('gui_not_built', 503, 'The GUI is not built: run npm run build');
      let body = files.get(name);
      if (!body) files.set(name, (body = readFileSync(`${dir}${name}`)));
      return body;
    };

    const tokenOf = (req: { headers: AuthCandidate['headers']; secure?: boolean }) => cookieOf(req.headers, cookieName(req.secure));
    const sessionOf = (req: { headers: AuthCandidate['headers']; secure?: boolean }) => sessions.find(tokenOf(req));
    const info = (csrf: string) => ({
      csrf_token: csrf,
      idle_timeout_seconds: IDLE_MINUTES * 60,
      consent_required: !ctx.settings.get<boolean>('analyticsConsentAsked'),
    });
    const requireSession = (req: RouteRequest<unknown, Record<string, string | undefined>>, mutation: boolean) => {
      const s = sessionOf(req);
      if (!s) throw new ApiError(tokenOf(req) ? 'session_expired' : 'unauthenticated', 401, 'Log in with the auth code');
      if (mutation && !csrfMatches(req.headers, s.csrf)) throw new ApiError('csrf_required', 403, 'The X-CSRF-Token header is missing or wrong');
      return s;
    };
    const csrfMatches = (headers: AuthCandidate['headers'], csrf: string): boolean => {
      const sent = header(headers, 'x-csrf-token');
      return typeof sent === 'string' && sent === csrf;
    };

    // A browser session stands for the admin scope on every REST route; routes marked `confirm` (secrets, new keys,
    // plugins, security settings, restores) also need the auth code entered again within CONFIRMED_MS.
    ctx.routes.authenticateWith((req): AuthInfo | null => {
      const token = tokenOf(req);
      if (token === null) return null;
      const s = sessions.find(token);
      if (!s) throw new ApiError('session_expired', 401, 'The GUI session ended: log in again');
      // A browser says where a request comes from; only the GUI's own page may use its session (defence in depth
      // beside SameSite=Strict, for a page of another origin on this host).
      const site = header(req.headers, 'sec-fetch-site');
      if (site !== undefined && !OWN_SITE.has(site)) throw new ApiError('csrf_required', 403, 'A page of another origin cannot use the GUI session');
      if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.headers, s.csrf)) {
        throw new ApiError('csrf_required', 403, 'The X-CSRF-Token header is missing or wrong');
      }
      return { keyId: 'gui-session', permissions: ['admin'], confirmed: sessions.confirmed(s) };
    });

    ctx.routes.add({
      method: 'GET',
      path: '/',
      access: { public: true },
      produces: 'text/html; charset=utf-8',
      handler: () => new RawReply(file('index.html'), 'text/html; charset=utf-8', 200, { ...SECURITY_HEADERS }),
    });
    // Browsers ask for /favicon.ico whatever the page links: the same icon, not a 404 in every log.
    ctx.routes.add({
      method: 'GET',
      path: '/favicon.ico',
      access: { public: true },
      produces: ASSETS['favicon.svg']!,
      handler: () => new RawReply(file('favicon.svg'), ASSETS['favicon.svg']!, 200, { ...SECURITY_HEADERS }),
    });
    ctx.routes.add<unknown, Record<string, string | undefined>>({
      method: 'GET',
      path: '/gui/assets/:file',
      access: { public: true },
      produces: [...new Set(Object.values(ASSETS))],
      handler: (req) => {
        const name = req.params.file ?? '';
        const type = lookup(ASSETS, name);
        if (!type) throw new ApiError('unknown_action', 404, 'Unknown asset');
        return new RawReply(file(name), type, 200, { ...SECURITY_HEADERS });
      },
    });

    ctx.routes.add<{ auth_code: string }>({
      method: 'POST',
      path: '/gui/api/session',
      access: { public: true },
      body: AUTH_CODE_BODY,
      response: sessionResponse,
      rateLimitPerMinute: 30,
      handler: (req) => {
        const { token, session } = sessions.login(req.ip, req.body.auth_code, ctx.identity.authCode);
        const cookie = `${cookieName(req.secure)}=${token}; ${cookieFlags(req.secure)}`;
        return new Reply(info(session.csrf), 200, 'Logged in', { 'Set-Cookie': cookie, 'Cache-Control': 'no-store' });
      },
    });
    ctx.routes.add<{ auth_code: string }>({
      method: 'POST',
      path: '/gui/api/confirm',
      access: { public: true },
      body: AUTH_CODE_BODY,
      response: objectOf({ confirmed_for_seconds: integerSchema }),
      rateLimitPerMinute: 30,
      handler: (req) => {
        sessions.confirm(req.ip, requireSession(req, true), req.body.auth_code, ctx.identity.authCode);
        return { confirmed_for_seconds: CONFIRMED_MS / 1000 };
      },
    });
    ctx.routes.add({
      method: 'GET',
      path: '/gui/api/session',
      access: { public: true },
      response: { allOf: [sessionResponse, objectOf({ authenticated: { const: true } })] },
      handler: (req) => ({ authenticated: true, ...info(requireSession(req, false).csrf) }),
    });
    ctx.routes.add({
      method: 'DELETE',
      path: '/gui/api/session',
      access: { public: true },
      response: objectOf({ logged_out: { const: true } }),
      handler: (req) => {
        sessions.end(requireSession(req, true).id);
        return new Reply({ logged_out: true }, 200, 'Logged out', { 'Set-Cookie': `${cookieName(req.secure)}=; ${cookieFlags(req.secure)}; Max-Age=0` });
      },
    });
    ctx.routes.add({
      method: 'GET',
      path: '/gui/api/events',
      access: { public: true },
      produces: 'text/event-stream; charset=utf-8',
      handler: (req) => {
        const s = requireSession(req, false);
        const stream = eventStream(ctx, { alive: () => sessions.alive(s), follow: (end) => sessions.follow(s, end) });
        return new RawReply(stream, 'text/event-stream; charset=utf-8', 200, { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
      },
    });
  },
});
