/**
 * node-cli `mcp ...`: thin clients of the operator REST routes (/api/v1/plugins/mcp-passthrough/*); the command line
 * holds no rule of its own. `--json` prints the routes' data.
 *
 *   mcp [status]                               active provider and model, currency, providers, key count, owed calls
 *   mcp config                                 the stored configuration
 *   mcp set <name> <value>                     one setting (the names of `configure.set`, federation limits included)
 *   mcp provider <id> [options]                add or change a provider (--token-file: the token never on the command line)
 *   mcp activate <provider> [model]            the active provider and model
 *   mcp keys                                   customer keys (no tokens)
 *   mcp key create <label> [options]           a key; its token is printed once (limits: --rpm --tpm --parallel ...)
 *   mcp key update <id> [limit options]        a key's limits, budget and allowed models
 *   mcp key revoke <id>                        revoke (the balance is not refunded)
 *   mcp usage [--limit N] [--key ID]           recent usage and top-ups
 */
import { readFileSync } from 'node:fs';
import { CliError, cliDisplay, defineCliCommands, parseIntOption, type CliContext } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

const BASE = '/api/v1/plugins/mcp-passthrough';

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError('INVALID_PARAMS', `cannot read ${what} from ${path}: ${(err as Error).message}`);
  }
}

function warnAll(ctx: CliContext, warnings: readonly string[] | undefined): void {
  for (const w of warnings ?? []) ctx.out.warn(`warning: ${w}`);
}

async function status(ctx: CliContext): Promise<void> {
  const s = await ctx.api.get<ResponseData['GET /api/v1/plugins/mcp-passthrough/status']>(`${BASE}/status`);
  ctx.out.success(s, () => {
    ctx.out.kv(
      [
        ['mode', s.mode],
        ['currency', s.currency],
        ['active', s.active.provider ? `${s.active.provider} / ${s.active.model ?? '(no model)'}` : null],
        ['keys', s.key_count],
        ['sessions', s.sessions],
        ['public routes', s.public_routes_served ? 'served' : 'off'],
        ['learned offers', s.federation.offer_count],
        ['owed to sellers', s.federation.owed_calls ? `${s.federation.owed_calls} call(s), paid by the settle-resales job` : 'nothing'],
      ],
      { title: 'MCP passthrough' },
    );
    ctx.out.table(
      s.providers,
      [
        { key: 'id', header: 'PROVIDER' },
        { key: 'preset', header: 'PRESET' },
        { key: 'endpoint', header: 'ENDPOINT', maxWidth: 40 },
        { key: 'has_token', header: 'TOKEN', format: (v) => (v ? 'yes' : 'no') },
        { key: 'enabled_models', header: 'ENABLED MODELS', maxWidth: 40, format: (_v, p) => p.enabled_models.join(' ') || '-' },
      ],
      { title: 'Providers', empty: 'No provider yet: node-cli mcp provider <id> --preset <preset> ...' },
    );
  });
}

async function configureWith(ctx: CliContext, body: Record<string, unknown>, message: string): Promise<void> {
  const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/mcp-passthrough/configure']>(`${BASE}/configure`, body);
  warnAll(ctx, data.warnings);
  ctx.out.success(data, message);
}

interface LimitOptions {
  rpm?: string;
  tpm?: string;
  parallel?: string;
  sessions?: string;
  budget?: string;
  models?: string;
}

/** The limit options of key create and key update (limits.ts on the node checks the values). */
function limitOptions<T extends { option(flags: string, description: string): T }>(command: T): T {
  return command
    .option('--rpm <n>', 'calls the key may start per minute (0: no limit)')
    .option('--tpm <n>', 'billed tokens the key may use per minute (0: no limit)')
    .option('--parallel <n>', 'calls the key may run at once (0: no limit)')
    .option('--sessions <n>', 'MCP sessions the key may hold')
    .option('--budget <amount/period>', 'most the key may be charged per day, week or month, e.g. 5/month')
    .option('--models <list>', 'comma-separated models the key may call');
}

function limitFields(o: LimitOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const int = (v: string | undefined, field: string): void => {
    if (v === undefined) return;
    if (v === 'default') out[field] = null;
    else if (/^\d+$/.test(v)) out[field] = Number(v);
    else throw new CliError('INVALID_PARAMS', `${field} must be a whole number or 'default'`);
  };
  int(o.rpm, 'requests_per_minute');
  int(o.tpm, 'tokens_per_minute');
  int(o.parallel, 'parallel_calls');
  int(o.sessions, 'sessions');
  if (o.budget !== undefined) {
    const m = /^([^/]+)\/(day|week|month)$/.exec(o.budget);
    if (o.budget === 'default') out.budget = null;
    else if (m) out.budget = { amount: m[1], period: m[2] };
    else throw new CliError('INVALID_PARAMS', "--budget is <amount>/<day|week|month>, e.g. 5/month, or 'default'");
  }
  if (o.models !== undefined) out.allowed_models = o.models === 'default' ? null : o.models.split(',').map((x) => x.trim()).filter(Boolean);
  return out;
}

function limitRows(l: ResponseData['POST /api/v1/plugins/mcp-passthrough/key-update']['limits']): [string, unknown][] {
  const own = (v: unknown, effective: unknown): string => (v === null ? `${String(effective)} (default)` : String(v));
  return [
    ['requests per minute', own(l.requests_per_minute, l.effective.requests_per_minute)],
    ['tokens per minute', own(l.tokens_per_minute, l.effective.tokens_per_minute)],
    ['parallel calls', own(l.parallel_calls, l.effective.parallel_calls)],
    ['sessions', own(l.sessions, l.effective.sessions)],
    ['budget', l.budget ? `${l.budget.amount} per ${l.budget.period}` : 'none'],
    ['models', l.allowed_models ? l.allowed_models.join(', ') : 'every model'],
  ];
}

export default defineCliCommands({
  plugin: 'mcp-passthrough',
  register(program, ctx) {
    const mcp = program
      .command('mcp')
      .summary('paid inference for MCP clients: providers, prices, customer keys, usage')
      .description('Operates the mcp-passthrough plugin (it must be enabled: node-cli plugin enable mcp-passthrough, then a restart). With no subcommand: status.');

    mcp.command('status', { isDefault: true }).summary('active provider and model, currency, providers, key count').action(() => status(ctx));

    mcp
      .command('config')
      .summary('the stored configuration (settings, providers, models, active)')
      .action(async () => {
        const c = await ctx.api.get<ResponseData['GET /api/v1/plugins/mcp-passthrough/config']>(`${BASE}/config`);
        ctx.out.success(c, () => {
          ctx.out.kv(Object.entries(c.settings), { title: 'Settings' });
          for (const p of c.providers) {
            ctx.out.line();
            ctx.out.line(`${p.id} (${p.preset}) ${p.endpoint} token: ${p.has_token ? 'stored' : 'none'}`);
            ctx.out.table(
              p.models,
              [
                { key: 'id', header: 'MODEL' },
                { key: 'enabled', header: 'ON', format: (v) => (v ? 'yes' : 'no') },
                { key: 'pricing_mode', header: 'PRICING' },
                { key: 'markup_pct', header: 'MARKUP %', align: 'right' },
                { key: 'manual_in_per_1m', header: 'IN/1M', align: 'right' },
                { key: 'manual_out_per_1m', header: 'OUT/1M', align: 'right' },
              ],
              { indent: 2, empty: '  no models' },
            );
          }
        });
      });

    mcp
      .command('set')
      .summary('change one setting')
      .argument('<name>', 'a setting name: mode, currency, max_output_tokens, allowed_origins, failover, retries, cooldown_seconds, balancing, requests_per_minute, tokens_per_minute, parallel_calls, sessions_per_key, budget_soft_limit_pct, remote_routing, max_hops, max_price_per_call, max_spend_per_day or resale_markup_pct')
      .argument('<value>')
      .action((name: string, value: string) => configureWith(ctx, { set: { [name]: value } }, `${name} set to ${value}.`));

    mcp
      .command('provider')
      .summary('add or change an upstream provider')
      .argument('<id>', 'provider id (lower-case letters, digits, . _ -)')
      .option('--preset <preset>', 'openai-compatible, openai, openrouter, vllm, llamacpp, ollama, anthropic')
      .option('--endpoint <url>', 'base URL (default: the preset\'s)')
      .option('--label <label>')
      .option('--token-file <path>', 'read the provider token from this file (kept encrypted; never shown again)')
      .option('--clear-token', 'remove the stored token')
      .option('--models-file <path>', 'a JSON array of model rows: replaces the provider\'s models')
      .action(async (id: string, o: { preset?: string; endpoint?: string; label?: string; tokenFile?: string; clearToken?: boolean; modelsFile?: string }) => {
        const provider: Record<string, unknown> = { id };
        if (o.preset) provider.preset = o.preset;
        if (o.endpoint) provider.endpoint = o.endpoint;
        if (o.label) provider.label = o.label;
        if (o.tokenFile) provider.token = readText(o.tokenFile, 'the token').trim();
        if (o.clearToken) provider.clear_token = true;
        if (o.modelsFile) {
          try {
            provider.models = JSON.parse(readText(o.modelsFile, 'the models'));
          } catch (err) {
            if (err instanceof CliError) throw err;
            throw new CliError('INVALID_PARAMS', `${o.modelsFile} is not JSON: ${(err as Error).message}`);
          }
        }
        await configureWith(ctx, { provider }, `Provider ${id} saved.`);
      });

    mcp
      .command('activate')
      .summary('choose the active provider and model')
      .argument('<provider>')
      .argument('[model]')
      .action((provider: string, model?: string) =>
        configureWith(ctx, { active: { provider, ...(model ? { model } : {}) } }, `Active: ${provider}${model ? ` / ${model}` : ''}.`),
      );

    mcp
      .command('keys')
      .summary('customer keys (tokens are never shown again)')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/plugins/mcp-passthrough/keys']>(`${BASE}/keys`);
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () =>
          ctx.out.table(
            data.keys,
            [
              { key: 'key_id', header: 'ID', align: 'right' },
              { key: 'label', header: 'LABEL', maxWidth: 24 },
              { key: 'status', header: 'STATUS' },
              { key: 'contact', header: 'CONTACT', format: (_v, k) => k.contact?.name ?? (k.contact ? `${k.contact.pubkey_hash.slice(0, 12)}…` : '-') },
              { key: 'funding', header: 'FUNDING' },
              { key: 'balance', header: 'BALANCE', align: 'right', format: (v, k) => `${show.amount(v)} ${k.currency}` },
              { key: 'debt', header: 'DEBT', align: 'right', format: (v) => show.amount(v) },
              { key: 'last_used_at', header: 'LAST USED', format: (v) => show.date(v) },
            ],
            { empty: 'No keys yet: node-cli mcp key create <label> --contact <contact>' },
          ),
        );
      });

    const key = mcp.command('key').summary('create, limit or revoke a customer key');
    const create = key
      .command('create')
      .summary('create a customer key; its token is printed once')
      .argument('<label>')
      .option('--contact <contact>', 'bind to an accepted contact (name, address or key hash); required in pilot mode')
      .option('--ttl <seconds>', 'expire after this many seconds', parseIntOption('--ttl', 1))
      .option('--currency <code>', 'must be the settlement currency')
      .option('--pubkey <key>', 'the customer\'s 32-byte public key (hex or base64)')
      .option('--funding <mode>', 'prepaid (default) or credit (on the bound contact\'s credit line)');
    limitOptions(create).action(async (label: string, o: LimitOptions & { contact?: string; ttl?: number; currency?: string; pubkey?: string; funding?: string }) => {
      const body: Record<string, unknown> = { label, ...limitFields(o) };
      if (o.contact) body.contact = o.contact;
      if (o.ttl !== undefined) body.ttl = o.ttl;
      if (o.currency) body.currency = o.currency;
      if (o.pubkey) body.registered_pubkey = o.pubkey;
      if (o.funding) body.funding = o.funding;
      const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/mcp-passthrough/key-create']>(`${BASE}/key-create`, body);
      warnAll(ctx, data.warnings);
      const show = await cliDisplay(ctx);
      ctx.out.success(data, () => {
        ctx.out.kv([
          ['key id', data.key_id],
          ['token', data.token],
          ['endpoint', data.endpoint ?? 'none: the node has no address yet'],
          ['openai base url', data.openai_base_url ?? 'none: the node has no address yet'],
          ['contact', data.contact?.name ?? data.contact?.pubkey_hash ?? 'none'],
          ['funding', `${data.funding.mode}; top up with a ${data.funding.currency} payment described ${data.funding.deposit_memo}`],
          ['expires', data.expires_at ? show.date(data.expires_at) : 'never'],
        ]);
        ctx.out.line('The token is shown only now. Clients use it as: Authorization: Bearer <token>');
        if (data.client_config) {
          ctx.out.line();
          ctx.out.line('MCP client configuration (for example .mcp.json):');
          for (const line of JSON.stringify(data.client_config, null, 2).split('\n')) ctx.out.line(line);
        }
      });
    });
    const update = key
      .command('update')
      .summary("change a key's limits, budget or allowed models ('default' returns one to the operator's default)")
      .argument('<id>', 'numeric key id', parseIntOption('<id>', 1));
    limitOptions(update).action(async (id: number, o: LimitOptions) => {
      const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/mcp-passthrough/key-update']>(`${BASE}/key-update`, { id, ...limitFields(o) });
      ctx.out.success(data, () => ctx.out.kv(limitRows(data.limits), { title: `Key ${id} limits` }));
    });
    key
      .command('revoke')
      .summary('revoke a customer key (its balance is not refunded)')
      .argument('<id>', 'numeric key id', parseIntOption('<id>', 1))
      .action(async (id: number) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/mcp-passthrough/key-revoke']>(`${BASE}/key-revoke`, { id });
        warnAll(ctx, data.warnings);
        ctx.out.success(data, `Key ${id} revoked.`);
      });

    mcp
      .command('usage')
      .summary('recent usage and top-ups')
      .option('--limit <n>', '1 to 500 (default 50)', parseIntOption('--limit', 1))
      .option('--key <id>', 'one key only', parseIntOption('--key', 1))
      .action(async (o: { limit?: number; key?: number }) => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/plugins/mcp-passthrough/usage']>(`${BASE}/usage`, { limit: o.limit, key_id: o.key });
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => {
          ctx.out.table(
            data.usage,
            [
              { key: 'finished_at', header: 'TIME', format: (v) => show.date(v) },
              { key: 'key_id', header: 'KEY', align: 'right' },
              { key: 'model', header: 'MODEL', maxWidth: 24 },
              { key: 'status', header: 'STATUS' },
              { key: 'input_tokens', header: 'IN', align: 'right' },
              { key: 'output_tokens', header: 'OUT', align: 'right', format: (v, u) => `${String(v)}${u.estimated ? '~' : ''}` },
              { key: 'charge', header: 'CHARGE', align: 'right', format: (v, u) => `${show.amount(v)} ${u.currency}` },
              { key: 'cost', header: 'COST', align: 'right', format: (v, u) => `${show.amount(v)} ${u.cost_currency ?? ''}`.trim() },
            ],
            { title: 'Usage (~ estimated)', empty: 'No usage yet.' },
          );
          ctx.out.line();
          ctx.out.table(
            data.topups,
            [
              { key: 'at', header: 'TIME', format: (v) => show.date(v) },
              { key: 'key_id', header: 'KEY', align: 'right' },
              { key: 'amount', header: 'AMOUNT', align: 'right', format: (v, t) => `${show.amount(v)} ${t.currency}` },
              { key: 'status', header: 'STATUS' },
              { key: 'reason', header: 'REASON' },
            ],
            { title: 'Top-ups', empty: 'No top-ups yet.' },
          );
        });
      });
  },
});
