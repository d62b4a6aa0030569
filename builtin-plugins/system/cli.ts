/**
 * node-cli commands of the system plugin:
 *
 *   viewsettings
 *   changesettings [setting] [value]        (no arguments: interactive)
 *   changesettings reset --yes
 *   restart | shutdown | start
 *   sync [contacts|transactions|balances]
 *   retire [--yes] | unretire [--yes]
 *   out | in (NODE_TEST_MODE only)
 *   report debug [description] [--full] [--send]
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, RAW_DISPLAY, defineCliCommands, provideCliDisplay, type CliApi, type CliContext, type CliDisplay } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';
import { dateFormatProblem, formatDate } from './display.js';

type SettingsView = ResponseData['GET /api/v1/system/settings'];
type ProcessorReply = ResponseData['POST /api/v1/system/shutdown'] | ResponseData['POST /api/v1/system/start'];

/** Restart waits at most this long for the node to answer again. */
const RESTART_WAIT_MS = 30_000;

/** `defaultFee`, `default_fee` and `default-fee` all name the REST setting `default_fee`. */
export function toSettingName(name: string): string {
  return name
    .trim()
    .replace(/-/g, '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

const valueText = (value: unknown): string => {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length ? value.join(',') : '(empty)';
  if (value === '') return '(empty)';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
};

interface SettingRow {
  category: string;
  name: string;
  value: unknown;
  note: string;
}

/**
 * The settings grouped by category (categories and names sorted); names without one go under "other". The lists
 * are optional so that a view built by hand (tests) need not name them all.
 */
export function settingRows(view: Pick<SettingsView, 'settings'> & Partial<SettingsView>): SettingRow[] {
  const categoryOf = new Map<string, string>();
  for (const [category, names] of Object.entries(view.categories ?? {})) for (const n of names) categoryOf.set(n, category);
  const overridden = new Set(view.overridden ?? []);
  const readOnly = new Set(view.read_only ?? []);
  return Object.entries(view.settings)
    .map(([name, value]) => ({
      category: categoryOf.get(name) ?? 'other',
      name,
      value,
      note: overridden.has(name) ? 'set by environment' : readOnly.has(name) ? 'read-only' : '',
    }))
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
}

/** A timestamp of the API as a Date: ISO 8601, or `YYYY-MM-DD HH:MM:SS` without a zone, which the API means as UTC. */
export function parseApiTime(value: string): Date | null {
  const text = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/**
 * Human output after the node's displayDateFormat; --json output never comes here. Amounts keep all 8 decimals:
 * displayDecimals is the GUI's (Document 2, currency rule 2; docs/decisions.md).
 */
export function displayFrom(settings: Record<string, unknown>): CliDisplay {
  const format = String(settings.display_date_format);
  const dated = dateFormatProblem(format) === null;
  return {
    amount: RAW_DISPLAY.amount,
    date: (v) => {
      const when = dated && typeof v === 'string' ? parseApiTime(v) : null;
      return when ? formatDate(when, format) : RAW_DISPLAY.date(v);
    },
  };
}

/** A node whose settings cannot be read (a key without system:read, an older node) shows the API's values. */
async function loadDisplay(api: CliApi): Promise<CliDisplay> {
  try {
    return displayFrom((await api.get<SettingsView>('/api/v1/system/settings')).settings);
  } catch {
    return RAW_DISPLAY;
  }
}

function printSettings(ctx: CliContext, rows: SettingRow[]): void {
  const o = ctx.out;
  const categories = [...new Set(rows.map((r) => r.category))];
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  categories.forEach((category, i) => {
    if (i > 0) o.line();
    o.line(`[${category}]`);
    for (const r of rows.filter((x) => x.category === category)) {
      o.line(`  ${r.name.padEnd(nameWidth)}  ${valueText(r.value)}${r.note ? `  (${r.note})` : ''}`.trimEnd());
    }
  });
  o.line();
  o.line('Change one with: node-cli changesettings <setting> <value>');
}

async function changeSetting(ctx: CliContext, name: string, value: string): Promise<void> {
  const setting = toSettingName(name);
  const data = await ctx.api.put<ResponseData['PUT /api/v1/system/settings']>('/api/v1/system/settings', {
    [setting]: value,
  });
  ctx.out.success(data, () => {
    const entries = Object.entries(data.updated);
    if (entries.length === 0) ctx.out.line(data.message);
    for (const [k, v] of entries) ctx.out.line(`${k} = ${valueText(v)}`);
  });
}

async function interactiveChange(ctx: CliContext): Promise<void> {
  if (!ctx.interactive) {
    ctx.fail('INVALID_PARAMS', 'changesettings needs <setting> <value> when not run in a terminal');
  }
  const view = await ctx.api.get<SettingsView>('/api/v1/system/settings');
  const rows = settingRows(view).filter((r) => !r.note);
  ctx.out.warn('Settings you can change:');
  rows.forEach((r, i) => ctx.out.warn(`  ${String(i + 1).padStart(3)}  ${r.name} = ${valueText(r.value)}`));
  const answer = await ctx.prompt('Setting (name or number, empty to cancel): ');
  if (!answer) throw new CliError('CANCELLED', 'cancelled: nothing was changed');
  const byNumber = /^\d+$/.test(answer) ? rows[Number(answer) - 1] : undefined;
  const name = byNumber?.name ?? toSettingName(answer);
  const current = view.settings[name];
  if (!byNumber && !(name in view.settings)) ctx.fail('unknown_setting', `Unknown setting: ${name}`);
  const value = await ctx.prompt(`New value for ${name} (now ${valueText(current)}): `);
  await changeSetting(ctx, name, value);
}

/** After a restart, waits until the node answers signed requests again. */
async function waitUntilServing(ctx: CliContext): Promise<boolean> {
  const deadline = Date.now() + RESTART_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      await ctx.api.get<ResponseData['GET /api/v1/system/status']>('/api/v1/system/status');
      return true;
    } catch (err) {
      if (err instanceof CliError && err.code !== 'NODE_UNREACHABLE' && err.code !== 'NODE_TIMEOUT' && err.details?.status !== 404 && err.details?.status !== 503) {
        return true; // it answers (with some error): it is up
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function printProcessors(ctx: CliContext, data: ProcessorReply): void {
  ctx.out.line(data.message);
  ctx.out.kv(Object.entries(data.processors).map(([name, running]) => [name, running ? 'running' : 'stopped']), { indent: 2 });
}

/**
 * Saves the report as `debug-report-<UTC second>.json` (mode 600), never over an existing file: a second report in
 * the same second gets `-2`, `-3`, ... Returns the path.
 */
function saveReport(dir: string, now: Date, report: unknown): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const text = JSON.stringify(report, null, 2) + '\n';
  for (let n = 1; ; n++) {
    const file = join(dir, `debug-report-${stamp}${n === 1 ? '' : `-${n}`}.json`);
    try {
      writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    chmodSync(file, 0o600);
    return file;
  }
}

export default defineCliCommands({
  plugin: 'system',
  register(program, ctx) {
    provideCliDisplay(ctx, loadDisplay);

    program
      .command('viewsettings')
      .summary('list the node settings by category')
      .action(async () => {
        const view = await ctx.api.get<SettingsView>('/api/v1/system/settings');
        const rows = settingRows(view);
        ctx.out.success(view, () => printSettings(ctx, rows));
      });

    program
      .command('changesettings')
      .summary('change a setting, or reset every setting to its default')
      .description(
        'changesettings <setting> <value> changes one setting; names may be camelCase (defaultFee) or snake_case ' +
          '(default_fee); lists are comma-separated; booleans accept true/false, on/off, yes/no, 1/0. Without ' +
          'arguments it lists the settings and asks which to change (terminal only). "changesettings reset --yes" ' +
          'resets every saved setting to its default (identity, contacts, transactions, backups and keys are untouched).',
      )
      .argument('[setting]', 'setting name, or "reset"')
      .argument('[value]', 'new value ("" clears a text or list setting)')
      .option('--yes', 'confirm "reset"')
      .action(async (setting: string | undefined, value: string | undefined, opts: { yes?: boolean }) => {
        if (setting === undefined) return interactiveChange(ctx);
        if (setting.toLowerCase() === 'reset' && value === undefined) {
          if (!opts.yes) {
            return ctx.fail('CONFIRMATION_REQUIRED', 'changesettings reset resets every setting to its default: add --yes to confirm');
          }
          const data = await ctx.api.post<ResponseData['POST /api/v1/system/settings/reset']>('/api/v1/system/settings/reset', { confirm: true });
          return ctx.out.success(data, data.message);
        }
        if (value === undefined) return ctx.fail('INVALID_PARAMS', `missing value: node-cli changesettings ${setting} <value>`);
        return changeSetting(ctx, setting, value);
      });

    program
      .command('restart')
      .summary('restart the node in place (applies plugin changes)')
      .description(
        'Restarts the node in place: every plugin is stopped and loaded again, so plugin enable/disable takes effect. ' +
          'Waits until the node answers again (up to 30 s).',
      )
      .action(async () => {
        const data = await ctx.progress('Restarting the node', async () => {
          const res = await ctx.api.post<ResponseData['POST /api/v1/system/restart']>('/api/v1/system/restart');
          if (!(await waitUntilServing(ctx))) {
            ctx.fail('RESTART_TIMEOUT', `the node did not answer within ${RESTART_WAIT_MS / 1000} s after the restart`);
          }
          return res;
        });
        ctx.out.success(data, () => {
          ctx.out.line(data.message);
          const failed = data.plugins.filter((p) => p.error);
          for (const p of failed) ctx.out.warn(`  plugin ${p.name} did not start: ${p.error}`);
        });
      });

    program
      .command('shutdown')
      .summary('stop the background processors (the REST API keeps serving)')
      .description('Stops the background processors (P2P, transactions, cleanup). The REST API keeps serving; "node-cli start" resumes them.')
      .action(async () => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/system/shutdown']>('/api/v1/system/shutdown');
        ctx.out.success(data, () => printProcessors(ctx, data));
      });

    program
      .command('start')
      .summary('start the background processors again')
      .action(async () => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/system/start']>('/api/v1/system/start');
        ctx.out.success(data, () => printProcessors(ctx, data));
      });

    program
      .command('sync')
      .summary('synchronise with contacts: contacts, transactions or balances (default: all)')
      .argument('[type]', 'contacts, transactions or balances')
      .action(async (type: string | undefined) => {
        const body = type === undefined || type.toLowerCase() === 'all' ? {} : { type: type.toLowerCase() };
        const data = await ctx.progress('Synchronising', () =>
          ctx.api.post<ResponseData['POST /api/v1/system/sync']>('/api/v1/system/sync', body),
        );
        ctx.out.success(data, () => {
          ctx.out.line(data.message);
          for (const [name, result] of Object.entries(data.results)) {
            const report = result.report;
            if (Array.isArray(report)) {
              ctx.out.line(`  ${name}:`);
              for (const line of report) ctx.out.line(`    ${String(line)}`);
            } else ctx.out.line(`  ${name}: ${JSON.stringify(result)}`);
          }
          if (data.skipped.length) ctx.out.line(`  not available: ${data.skipped.join(', ')}`);
        });
      });

    program
      .command('retire')
      .summary('retire the node: stop processors and refuse peer traffic until unretire')
      .option('--yes', 'do not ask for confirmation')
      .action(async (opts: { yes?: boolean }) => {
        await ctx.confirm('Retire this node? Processors stop and peers are refused until "node-cli unretire".', Boolean(opts.yes));
        const data = await ctx.api.post<ResponseData['POST /api/v1/system/retire']>('/api/v1/system/retire', { confirm: true });
        ctx.out.success(data, () => {
          ctx.out.line(data.message);
          ctx.out.line(`  Processes stopped  ${data.processes_terminated}`);
          if (data.tor_access_warning) ctx.out.warn(`Note: ${data.tor_access_warning}`);
        });
      });

    program
      .command('unretire')
      .summary('bring a retired node back into service')
      .option('--yes', 'do not ask for confirmation')
      .action(async (opts: { yes?: boolean }) => {
        await ctx.confirm(
          'Unretire this node? Only safe when no other node runs this wallet identity.',
          Boolean(opts.yes),
        );
        const data = await ctx.api.post<ResponseData['POST /api/v1/system/unretire']>('/api/v1/system/unretire', { confirm: true });
        ctx.out.success(data, data.message);
      });

    for (const [name, summary] of [
      ['out', "test mode: take the node's peer transports down (peers cannot reach it, it reaches no peer)"],
      ['in', "test mode: bring the node's peer transports back up (queued messages go at once)"],
    ] as const) {
      program
        .command(name)
        .summary(summary)
        .action(async () => {
          const data = await ctx.api.post<ResponseData[`POST /api/v1/system/${typeof name}`]>(`/api/v1/system/${name}`, {});
          ctx.out.success(data, data.message);
        });
    }

    const report = program.command('report').summary('debug reports');
    report
      .command('debug')
      .summary('save a debug report to a JSON file, or submit it with --send')
      .description(
        'Builds a debug report (system facts, settings, recent log entries; never keys, seed phrase or auth code). ' +
          'Without --send it is saved as debug-report-<time>.json in the current directory (mode 600). With --send ' +
          'it is scrubbed and submitted (3 per day). --full includes up to 5 MB of log instead of the last 50 lines.',
      )
      .argument('[description]', 'what went wrong (at most 500 characters)')
      .option('--full', 'full logs instead of the last 50 lines')
      .option('--send', 'submit the report instead of saving it')
      .action(async (description: string | undefined, opts: { full?: boolean; send?: boolean }) => {
        const full = Boolean(opts.full);
        if (opts.send) {
          const body: Record<string, unknown> = { full };
          if (description !== undefined) body.description = description;
          const data = await ctx.progress('Submitting the debug report', () =>
            ctx.api.post<ResponseData['POST /api/v1/system/debug-report']>('/api/v1/system/debug-report', body),
          );
          return ctx.out.success(data, `Debug report submitted (${data.report_type}); reference: ${data.key}`);
        }
        const query: Record<string, string | boolean> = { full };
        if (description !== undefined) query.description = description;
        const data = await ctx.progress('Building the debug report', () =>
          ctx.api.get<ResponseData['GET /api/v1/system/debug-report']>('/api/v1/system/debug-report', query),
        );
        const file = saveReport(process.cwd(), new Date(), data.report);
        const result = { file, report_type: data.report_type, debug_entries_count: data.debug_entries_count };
        ctx.out.success(result, () => {
          ctx.out.line(`Debug report saved: ${file}`);
          ctx.out.kv(
            [
              ['Type', result.report_type],
              ['Log entries', result.debug_entries_count],
            ],
            { indent: 2 },
          );
        });
      });
  },
});
