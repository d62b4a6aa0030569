/**
 * node-cli commands of the api-keys plugin:
 *
 *   apikey [list]
 *   apikey show <key_id>
 *   apikey create <name> [--permissions a,b] [--rate-limit N] [--expires ISO]
 *   apikey enable|disable|delete <key_id>
 */
import { cliDisplay, defineCliCommands, parseIntOption, type CliContext, type CliDisplay } from '../../sdk/cli.js';
import { allPages } from '../../sdk/cli-paging.js';
import type { ResponseData } from '../../sdk/index.js';

type KeyView = ResponseData['GET /api/v1/keys/{key_id}']['key'];

const keyPath = (keyId: string): string => `/api/v1/keys/${encodeURIComponent(keyId)}`;

const statusOf = (k: KeyView): string => (k.expired ? 'expired' : k.enabled ? 'active' : 'disabled');

function printKey(ctx: CliContext, show: CliDisplay, k: KeyView, title: string, extra: Array<[string, unknown]> = []): void {
  ctx.out.kv(
    [
      ['Key ID', k.key_id],
      ['Name', k.name],
      ['Permissions', k.permissions],
      ['Rate limit', `${k.rate_limit_per_minute} requests per minute`],
      ['Status', statusOf(k)],
      ['Created', show.date(k.created_at)],
      ['Last used', k.last_used_at ? show.date(k.last_used_at) : 'never'],
      ['Expires', k.expires_at ? show.date(k.expires_at) : 'never'],
      ...extra,
    ],
    { title },
  );
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export default defineCliCommands({
  plugin: 'api-keys',
  register(program, ctx) {
    const apikey = program
      .command('apikey')
      .summary('list, create, enable, disable and delete API keys')
      .description(
        'Manages the API keys that sign REST requests (HMAC-SHA256). A key has a name, permissions (scopes such as ' +
          'wallet:read, system:*, admin), a rate limit per minute and an optional expiry. The secret is shown once, ' +
          'when the key is created. With no subcommand: list.',
      );

    apikey
      .command('list', { isDefault: true })
      .summary('list every API key (disabled and expired ones included)')
      .action(async () => {
        const { rows } = await allPages<ResponseData['GET /api/v1/keys']['keys'][number]>(ctx.api, '/api/v1/keys', 'keys');
        const data = { keys: rows, count: rows.length };
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () =>
          ctx.out.table(
            data.keys,
            [
              { key: 'key_id', header: 'KEY ID' },
              { key: 'name', header: 'NAME', maxWidth: 24 },
              { key: 'permissions', header: 'PERMISSIONS', maxWidth: 40 },
              { key: 'rate_limit_per_minute', header: 'RATE/MIN', align: 'right' },
              { key: 'enabled', header: 'STATUS', format: (_v, k) => statusOf(k) },
              { key: 'last_used_at', header: 'LAST USED', format: (v) => (v ? show.date(v) : 'never') },
              { key: 'expires_at', header: 'EXPIRES', format: (v) => (v ? show.date(v) : 'never') },
            ],
            { title: `API keys (${data.keys.length})`, empty: 'No API keys. Create one with: node-cli apikey create <name>' },
          ),
        );
      });

    apikey
      .command('show')
      .summary('show one API key (never its secret)')
      .argument('<key_id>')
      .action(async (keyId: string) => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/keys/{key_id}']>(keyPath(keyId));
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printKey(ctx, show, data.key, 'API key'));
      });

    apikey
      .command('create')
      .summary('create an API key and print its secret once')
      .description(
        'Creates an API key. Permissions default to wallet:read,contacts:read; the rate limit to 100 requests per ' +
          'minute; no expiry unless --expires is given (ISO 8601 UTC, for example 2030-01-31T12:00:00Z). The secret ' +
          'is printed once: store it right away.',
      )
      .argument('<name>', 'a label for the key (1-100 characters)')
      .option('--permissions <list>', 'comma-separated scopes, e.g. wallet:read,wallet:send')
      .option('--rate-limit <n>', 'requests per minute', parseIntOption('--rate-limit', 1))
      .option('--expires <iso>', 'expiry time, ISO 8601 UTC')
      .action(async (name: string, opts: { permissions?: string; rateLimit?: number; expires?: string }) => {
        const body: Record<string, unknown> = { name };
        if (opts.permissions !== undefined) body.permissions = splitList(opts.permissions);
        if (opts.rateLimit !== undefined) body.rate_limit_per_minute = opts.rateLimit;
        if (opts.expires !== undefined) body.expires_at = opts.expires;
        const key = await ctx.api.post<ResponseData['POST /api/v1/keys']>('/api/v1/keys', body);
        const show = await cliDisplay(ctx);
        ctx.out.success(key, () => {
          // A new key is unused, and not expired: the node refuses an expiry in the past.
          printKey(ctx, show, { ...key, expired: false, last_used_at: null }, `API key created: ${key.key_id}`, [['Secret', key.secret]]);
          ctx.out.line();
          ctx.out.line('Sign requests with X-API-Key = the key id and the secret as the HMAC key (see docs/cli.md).');
        });
        ctx.out.warn(`WARNING: ${key.warning}`);
      });

    for (const [verb, summary] of [
      ['enable', 'enable a disabled API key'],
      ['disable', 'disable an API key (it stops authenticating at once)'],
    ] as const) {
      apikey
        .command(verb)
        .summary(summary)
        .argument('<key_id>')
        .action(async (keyId: string) => {
          const data = await ctx.api.post<ResponseData[`POST /api/v1/keys/${typeof verb}/{key_id}`]>(`/api/v1/keys/${verb}/${encodeURIComponent(keyId)}`);
          ctx.out.success(data, data.message);
        });
    }

    apikey
      .command('delete')
      .summary('delete an API key permanently')
      .argument('<key_id>')
      .action(async (keyId: string) => {
        const data = await ctx.api.delete<ResponseData['DELETE /api/v1/keys/{key_id}']>(keyPath(keyId));
        ctx.out.success(data, data.message);
      });
  },
});
