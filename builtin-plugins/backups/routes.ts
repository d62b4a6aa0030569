import { ApiError, created, type PluginContext } from '../../sdk/index.js';
import type { Backups } from './core.js';
import { NAME_PATTERN } from './names.js';
import { noSuccessSchema } from '../../sdk/schema.js';
import { cleanupResponse, createdResponse, listResponse, removedResponse, statusResponse, toggledResponse, verifyResponse } from './schemas.js';
import { DIRECTORY_VARIABLE, RECOVERY_VARIABLE } from './recovery.js';

const READ = { scope: 'backup:read' };
const WRITE = { scope: 'backup:write' };

export interface BackupPolicyView {
  enabled(): boolean;
  retention(): number;
  /** Applies retention now (the settings' count and scope). */
  prune(): ReturnType<Backups['cleanup']>;
  /** The next daily backup (ms), or null when none is scheduled. */
  nextScheduled(): number | null;
  setEnabled(enabled: boolean): void;
}

/** Document 1, "Backups": every route under /api/v1/backup. Read routes take backup:read, the others backup:write. */
export function registerBackupRoutes(ctx: PluginContext, backups: Backups, policy: BackupPolicyView): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/backup/status',
    response: statusResponse,
    access: READ,
    handler: () => {
      const files = backups.list();
      const next = policy.nextScheduled();
      return {
        enabled: policy.enabled(),
        backup_count: files.length,
        retention_count: policy.retention(),
        last_backup: files[0]?.created_at ?? null,
        last_backup_file: files[0]?.filename ?? null,
        backup_directory: backups.directory,
        next_scheduled: next === null ? null : new Date(next).toISOString(),
      };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/backup/list',
    response: listResponse,
    access: READ,
    handler: () => {
      const files = backups.list();
      return { backups: files, count: files.length };
    },
  });

  ctx.routes.add<{ name?: string }>({
    method: 'POST',
    path: '/api/v1/backup/create',
    response: createdResponse,
    access: WRITE,
    body: { type: 'object', properties: { name: { type: 'string', pattern: NAME_PATTERN } } },
    errorCodes: { name: 'invalid_name' },
    handler: async (req) => {
      const name = req.body.name;
      const made = await backups.create(name === undefined ? { kind: 'backup' } : { kind: 'backup', name }, 'refuse');
      ctx.log.info('backup created through the API', { filename: made.filename, by: req.auth?.keyId });
      return created(made);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/backup/restore',
    response: noSuccessSchema,
    access: WRITE,
    confirm: true,
    handler: () => {
      throw new ApiError(
        'offline_restore_required',
        422,
        `Online restore is disabled: a backup is restored only while a new node starts on an empty data directory, ` +
          `with ${RECOVERY_VARIABLE}=<filename>, the seed phrase in RESTORE_FILE and ${DIRECTORY_VARIABLE} where the backups are`,
      );
    },
  });

  ctx.routes.add<{ filename: string }>({
    method: 'POST',
    path: '/api/v1/backup/verify',
    response: verifyResponse,
    access: READ,
    body: { type: 'object', required: ['filename'], properties: { filename: { type: 'string' } } },
    errorCodes: { filename: 'invalid_filename' },
    handler: (req) => backups.verify(req.body.filename),
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/backup/:filename',
    response: removedResponse,
    access: WRITE,
    confirm: true,
    handler: (req) => backups.remove(req.params.filename ?? ''),
  });

  const toggle = (enabled: boolean) => () => {
    policy.setEnabled(enabled);
    const next = policy.nextScheduled();
    return {
      message: enabled
        ? `Daily backups enabled${next === null ? '' : `; next at ${new Date(next).toISOString()}`}`
        : 'Daily backups disabled (no backup before shutdown either)',
      enabled,
    };
  };
  ctx.routes.add({ method: 'POST', path: '/api/v1/backup/enable', access: WRITE, response: toggledResponse, handler: toggle(true) });
  ctx.routes.add({ method: 'POST', path: '/api/v1/backup/disable', access: WRITE, response: toggledResponse, handler: toggle(false) });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/backup/cleanup',
    response: cleanupResponse,
    access: WRITE,
    confirm: true,
    handler: () => policy.prune(),
  });
}
