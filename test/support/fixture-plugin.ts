import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { Readable } from 'node:stream';
import { definePlugin, RawReply } from '../../sdk/index.js';

/**
 * A tiny non-essential builtin plugin, for tests only: disabled by default, with plugin routes (HMAC, scoped),
 * public routes under `/p/fixture/`, a per-route rate limit and small body limits. Its routes echo what the host
 * handed them (client address, key, body), so tests can observe the pipeline.
 */
export const FIXTURE_PUBLIC_RATE_LIMIT = 3;
export const FIXTURE_MAX_BODY_BYTES = 256;

export const fixturePlugin: BuiltinPlugin = {
  manifest: {
    name: 'fixture',
    version: '1.2.3',
    description: 'Test fixture plugin',
    author: 'tests',
    license: 'MIT',
    homepage: 'https://example.invalid/fixture',
    has_changelog: true,
    public_routes: ['ping'],
  },
  definition: definePlugin({
    setup(ctx) {
      ctx.routes.plugin({
        method: 'GET',
        path: 'echo',
        access: { scope: 'wallet:read' },
        handler: (req) => ({ ip: req.ip, key_id: req.auth?.keyId ?? null, query: req.query }),
      });
      ctx.routes.plugin({
        method: 'POST',
        path: 'echo',
        access: { scope: 'wallet:read' },
        body: { type: 'object' },
        maxBodyBytes: FIXTURE_MAX_BODY_BYTES,
        handler: (req) => ({ received: req.body }),
      });
      ctx.routes.plugin({
        method: 'POST',
        path: 'send',
        access: { scope: 'wallet:send' },
        handler: () => ({ sent: true }),
      });
      ctx.routes.public({
        method: 'GET',
        path: 'ping',
        rateLimitPerMinute: FIXTURE_PUBLIC_RATE_LIMIT,
        handler: (req) => ({ pong: true, ip: req.ip }),
      });
      ctx.routes.public({
        method: 'POST',
        path: 'ping',
        body: { type: 'object' },
        maxBodyBytes: FIXTURE_MAX_BODY_BYTES,
        handler: (req) => ({ pong: true, received: req.body }),
      });
      // A public route's own replies: JSON and an event stream (written as Koa writes them), a page (left to Koa).
      ctx.routes.public({
        method: 'POST',
        path: 'ping/raw',
        handler: (req) => new RawReply(JSON.stringify({ raw: req.rawBody.toString('utf8') }), 'application/json', 202, { 'X-Fixture': 'raw' }),
      });
      ctx.routes.public({
        method: 'GET',
        path: 'ping/stream/:n',
        handler: (req) =>
          new RawReply(Readable.from(Array.from({ length: Number(req.params.n) }, (_, i) => `data: ${i}\n\n`)), 'text/event-stream', 200, { 'Cache-Control': 'no-cache' }),
      });
      ctx.routes.public({ method: 'GET', path: 'ping/page', handler: () => new RawReply('<p>pong</p>', 'text/html') });
    },
  }),
};
