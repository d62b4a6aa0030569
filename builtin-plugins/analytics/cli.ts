/**
 * node-cli commands of the analytics plugin: the consent choices of Document 2 ("Analytics consent") as commands,
 * thin clients of PUT /system/settings and the plugin's routes.
 *
 *   analytics [status]   consent, schedule, last submission
 *   analytics enable     opt in (same as `changesettings analyticsEnabled true`)
 *   analytics disable    opt out, at once
 *   analytics decline    answer the question with "no thanks" while analytics are off (stops the banner notice)
 *   analytics preview    the heartbeat exactly as it would be sent now; sends nothing
 */
import { cliDisplay, defineCliCommands, type CliContext } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

const SETTINGS = '/api/v1/system/settings';

async function status(ctx: CliContext): Promise<void> {
  const s = await ctx.api.get<ResponseData['GET /api/v1/plugins/analytics/status']>('/api/v1/plugins/analytics/status');
  const show = await cliDisplay(ctx);
  const when = (at: string | null): string | null => (at ? show.date(at) : null);
  ctx.out.success(s, () =>
    ctx.out.kv(
      [
        ['enabled', `${s.enabled ? 'yes' : 'no'}${s.decided_by_environment ? ' (set by NODE_ANALYTICS_ENABLED)' : ''}`],
        ['consent', s.consent_pending ? 'not asked yet' : s.enabled ? `given ${when(s.opt_in_at) ?? ''}`.trim() : 'declined or withdrawn'],
        ['collector', s.collector ?? 'not configured (analytics_url)'],
        ['next heartbeat', when(s.next_heartbeat_at)],
        ['last submitted', s.last_submitted ? `${when(s.last_submitted)} (${s.last_event})` : null],
        ['last attempt', s.last_attempt ? `${when(s.last_attempt.at)} ${s.last_attempt.event}: ${s.last_attempt.ok ? 'accepted' : s.last_attempt.error}` : null],
      ],
      { title: 'Anonymous analytics' },
    ),
  );
}

async function setConsent(ctx: CliContext, body: Record<string, boolean>, message: string): Promise<void> {
  const data = await ctx.api.put<ResponseData['PUT /api/v1/system/settings']>(SETTINGS, body);
  ctx.out.success(data, message);
}

export default defineCliCommands({
  plugin: 'analytics',
  register(program, ctx) {
    const analytics = program
      .command('analytics')
      .summary('anonymous usage analytics: status, enable, disable, decline, preview')
      .description(
        'Opt-in: one anonymous summary a day (counts and totals; no names, addresses, keys or single payments) sent ' +
          'over Tor to the configured collector. Off until you enable it. With no subcommand: status.',
      );

    analytics.command('status', { isDefault: true }).summary('consent, schedule and the last submission').action(() => status(ctx));

    analytics
      .command('enable')
      .summary('opt in: send node_setup now and a heartbeat every day')
      .action(() => setConsent(ctx, { analytics_enabled: true }, 'Analytics enabled: one anonymous heartbeat a day from now on.'));

    analytics
      .command('disable')
      .summary('opt out, effective at once')
      .action(() => setConsent(ctx, { analytics_enabled: false }, 'Analytics disabled: nothing more is sent.'));

    analytics
      .command('decline')
      .summary('keep analytics off and stop asking')
      .action(async () => {
        const s = await ctx.api.get<ResponseData['GET /api/v1/plugins/analytics/status']>('/api/v1/plugins/analytics/status');
        if (s.enabled) ctx.fail('INVALID_PARAMS', 'analytics are on; switch them off with: node-cli analytics disable');
        await setConsent(ctx, { analytics_consent_asked: true }, 'Analytics stay off; the startup notice will not ask again.');
      });

    analytics
      .command('preview')
      .summary('show the heartbeat as it would be sent now (sends nothing)')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/plugins/analytics/preview']>('/api/v1/plugins/analytics/preview');
        ctx.out.success(data, () => {
          ctx.out.line(`Period ${data.window.from} .. ${data.window.to}${data.enabled ? '' : ' (analytics are off: this is not sent)'}`);
          for (const line of JSON.stringify(data.payload, null, 2).split('\n')) ctx.out.line(line);
        });
      });
  },
});
