/**
 * node-cli commands of the backups plugin (Document 2, "backup"):
 *
 *   backup create [--name <name>]
 *   backup list
 *   backup verify <filename>
 *   backup delete <filename>
 *   backup enable | disable
 *   backup status
 *   backup cleanup
 *   backup restore <filename> --confirm     (explains boot recovery: online restore is disabled)
 */
import { CliError, cliDisplay, defineCliCommands, type CliContext } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';
import { humanSize } from './names.js';
import { DIRECTORY_VARIABLE, RECOVERY_VARIABLE } from './recovery.js';

/** Writing or verifying a backup of a large database takes minutes; the CLI's usual 60 s would give up on it. */
const LONG_WORK_TIMEOUT_MS = 60 * 60_000;

/** A POST that may run for minutes, with the same error reporting as every other call. */
async function longPost<T>(ctx: CliContext, path: string, body: unknown): Promise<T> {
  const res = await ctx.api.raw('POST', path, { body, timeoutMs: LONG_WORK_TIMEOUT_MS });
  const env = (res.body ?? {}) as { success?: boolean; data?: T; error?: { code?: string; message?: string } };
  if (res.status < 400 && env.success !== false) return env.data as T;
  throw new CliError(env.error?.code ?? `http_${res.status}`, env.error?.message ?? `HTTP ${res.status}`, { status: res.status });
}

const recoveryHelp = (filename: string): string[] => [
  `Online restore is disabled: ${filename} is restored while a node starts on a new, empty data directory.`,
  '  1. Stop this node (or use another machine) and keep its backup directory and its 24-word seed phrase at hand.',
  `  2. Start wallet-node on an empty data directory with:`,
  `       ${RECOVERY_VARIABLE}=${filename}`,
  `       RESTORE_FILE=<file holding the seed phrase>`,
  `       ${DIRECTORY_VARIABLE}=<the directory holding ${filename}> (default: <data dir>/backups)`,
  '  3. Check node-cli info and balances; then start it without those variables.',
  'The start refuses, and changes nothing, if the directory is not empty or the file does not verify.',
];

export default defineCliCommands({
  plugin: 'backups',
  register(program, ctx) {
    const backup = program
      .command('backup')
      .summary('create, list, verify and delete encrypted backups; daily schedule and retention')
      .description(
        'Backups are encrypted, authenticated snapshots of the node (database, settings, plugin switches), written to ' +
          'the backup directory (NODE_BACKUP_DIR, default <data dir>/backups). They are restored only by boot recovery ' +
          'into an empty data directory: see backup restore.',
      );

    backup
      .command('create')
      .summary('write a backup now')
      .option('--name <name>', 'name it <name>.node.enc (letters, digits, _ and -) instead of backup_<date>_<time>')
      .action(async (opts: { name?: string }) => {
        const data = await ctx.progress('Writing the backup', () =>
          longPost<ResponseData['POST /api/v1/backup/create']>(ctx, '/api/v1/backup/create', opts.name === undefined ? {} : { name: opts.name }),
        );
        ctx.out.success(data, () => ctx.out.line(`Backup ${data.filename} created (${humanSize(data.size)}): ${data.path}`));
      });

    backup
      .command('list')
      .summary('list backups, newest first')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/backup/list']>('/api/v1/backup/list');
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () =>
          ctx.out.table(
            data.backups,
            [
              { key: 'filename', header: 'FILE' },
              { key: 'size_human', header: 'SIZE', align: 'right' },
              { key: 'created_at', header: 'CREATED', format: show.date },
            ],
            { title: `Backups: ${data.count}`, empty: 'No backups yet (backup create writes one).' },
          ),
        );
      });

    backup
      .command('verify')
      .summary('decrypt a backup and check its database; exits 1 when it is not valid')
      .argument('<filename>')
      .action(async (filename: string) => {
        const data = await ctx.progress('Verifying', () => longPost<ResponseData['POST /api/v1/backup/verify']>(ctx, '/api/v1/backup/verify', { filename }));
        if (!data.valid) {
          const { filename: _f, valid: _v, reason, ...rest } = data;
          ctx.fail('BACKUP_INVALID', `${data.filename} is not a valid backup: ${reason ?? 'unknown reason'}`, { filename: data.filename, ...rest });
        }
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => ctx.out.line(`${data.filename} is valid (format ${data.version}, created ${show.date(data.created_at)}).`));
      });

    backup
      .command('delete')
      .summary('delete a backup file')
      .argument('<filename>')
      .action(async (filename: string) => {
        const data = await ctx.api.delete<ResponseData['DELETE /api/v1/backup/{filename}']>(`/api/v1/backup/${encodeURIComponent(filename)}`);
        ctx.out.success(data, data.message);
      });

    for (const [verb, summary] of [
      ['enable', 'take a backup every day (and before a clean shutdown)'],
      ['disable', 'stop the daily backup (and the one before shutdown)'],
    ] as const) {
      backup
        .command(verb)
        .summary(summary)
        .action(async () => {
          const data = await ctx.api.post<ResponseData[`POST /api/v1/backup/${typeof verb}`]>(`/api/v1/backup/${verb}`);
          ctx.out.success(data, data.message);
        });
    }

    backup
      .command('status')
      .summary('schedule, retention, last backup and directory')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/backup/status']>('/api/v1/backup/status');
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () =>
          ctx.out.kv([
            ['daily backups', data.enabled ? 'enabled' : 'disabled'],
            ['next', data.next_scheduled ? show.date(data.next_scheduled) : null],
            ['backups', data.backup_count],
            ['kept', data.retention_count],
            ['last', data.last_backup_file ? `${data.last_backup_file} (${show.date(data.last_backup)})` : null],
            ['directory', data.backup_directory],
          ]),
        );
      });

    backup
      .command('cleanup')
      .summary('delete old backups, keeping the newest (backupRetentionCount, backupRetentionScope)')
      .action(async () => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/backup/cleanup']>('/api/v1/backup/cleanup');
        ctx.out.success(data, () => {
          ctx.out.line(data.message);
          for (const f of data.deleted_files) ctx.out.line(`  deleted ${f}`);
        });
      });

    backup
      .command('restore')
      .summary('how to restore a backup (boot recovery into an empty data directory)')
      .argument('<filename>')
      .option('--confirm', 'confirm the restore (the node still answers that it must happen at boot)')
      .action(async (filename: string, opts: { confirm?: boolean }) => {
        if (!opts.confirm) {
          throw new CliError('CONFIRMATION_REQUIRED', `restoring replaces the node's state; add --confirm. ${recoveryHelp(filename)[0]}`);
        }
        try {
          // Not ResponseData's `never`: this node always refuses, but a node that accepts must reach the check below.
          await ctx.api.post<unknown>('/api/v1/backup/restore', { filename, confirm: true });
        } catch (err) {
          if (!(err instanceof CliError) || err.code !== 'offline_restore_required') throw err;
          for (const line of recoveryHelp(filename)) ctx.out.warn(line);
          throw err;
        }
        throw new CliError('UNEXPECTED_RESPONSE', 'the node accepted an online restore, which this version of node-cli does not know');
      });
  },
});
