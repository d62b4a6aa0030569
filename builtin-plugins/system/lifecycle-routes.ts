import type { KernelApi, PluginContext } from '../../sdk/index.js';
import { ApiError } from '../../sdk/index.js';
import { SYNC_OWNERS, SYNC_TYPES, type SyncType } from './api.js';
import type { Extensions } from './extensions.js';
import { retireResponse, restartResponse, shutdownResponse, startResponse, syncResponse, transportsResponse, unretireResponse } from './schemas.js';
import { processorFlags } from './status.js';

/**
 * Processors, restart, retirement and sync: the routes that change what the node is doing.
 * "Processors" are the kernel's scheduled jobs; shutdown stops them all, start schedules them again.
 */

const WRITE = { scope: 'system:write' } as const;
const WRITE_OR_ADMIN = { scope: ['system:write', 'admin'] } as const;
const NO_INPUT = { type: 'object' } as const;
const CONFIRM_BODY = { type: 'object' } as const;

export const TOR_ACCESS_WARNING =
  'This node no longer accepts peer traffic: contacts cannot reach it over Tor or any other transport until it is unretired. ' +
  'Unretire only if no other node runs this wallet identity.';

/**
 * One restart at a time per node: a second request while one runs waits for the same reload instead of
 * unloading plugins that are still loading. Kept outside the plugin (a reload recreates the plugin's state).
 */
const restarts = new WeakMap<KernelApi, Promise<void>>();

function restartOnce(kernel: KernelApi): Promise<void> {
  let running = restarts.get(kernel);
  if (!running) {
    running = kernel.restart().finally(() => restarts.delete(kernel));
    restarts.set(kernel, running);
  }
  return running;
}

const requireConfirm = (body: { confirm?: unknown }, action: string): void => {
  if (body.confirm !== true) throw new ApiError('confirmation_required', 400, `${action} needs {"confirm": true}`);
};

export function registerLifecycleRoutes(ctx: PluginContext, extensions: Extensions): void {
  const { kernel } = ctx;

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/system/shutdown',
    response: shutdownResponse,
    access: WRITE,
    body: NO_INPUT,
    handler: () => {
      const terminated = kernel.jobs.stopAll();
      ctx.log.info('background processors stopped', { jobs: terminated });
      return {
        message: terminated ? 'Background processors stopped' : 'Background processors were already stopped',
        processes_terminated: terminated,
        processors: processorFlags(kernel.jobs),
      };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/system/start',
    response: startResponse,
    access: WRITE,
    body: NO_INPUT,
    handler: () => {
      if (kernel.isRetired()) {
        throw new ApiError('start_error', 409, 'The node is retired; unretire it (POST /api/v1/system/unretire) to start its processors');
      }
      const started = kernel.jobs.startAll();
      ctx.log.info('background processors started', { jobs: started });
      return {
        message: started ? 'Background processors started' : 'Background processors are already running',
        processes_started: started,
        processors: processorFlags(kernel.jobs),
      };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/system/restart',
    response: restartResponse,
    access: WRITE,
    body: NO_INPUT,
    handler: async () => {
      // The restart is awaited: when the answer arrives, the new plugin generation already serves requests.
      // This handler's closure outlives its own plugin's unload, and the kernel swaps routes only at the end.
      const began = Date.now();
      try {
        await restartOnce(kernel);
      } catch (err) {
        ctx.log.error('restart failed', { error: err instanceof Error ? err.message : String(err) });
        throw new ApiError('restart_error', 500, 'The restart failed; the node keeps its previous plugin generation. See the debug report for details.');
      }
      return {
        message: 'Node restarted: plugins reloaded',
        restarted: true,
        duration_ms: Date.now() - began,
        plugins: kernel.plugins.list().map((p) => ({ name: p.name, enabled: p.enabled, status: p.status, error: p.error })),
      };
    },
  });

  ctx.routes.add<{ confirm?: unknown }>({
    method: 'POST',
    path: '/api/v1/system/retire',
    response: retireResponse,
    access: WRITE_OR_ADMIN,
    body: CONFIRM_BODY,
    handler: (req) => {
      requireConfirm(req.body, 'Retiring the node');
      const wasRetired = kernel.isRetired();
      const terminated = kernel.jobs.stopAll();
      kernel.setRetired(true);
      if (!wasRetired) ctx.log.warn('node retired', { jobs_stopped: terminated });
      return {
        message: wasRetired ? 'The node was already retired' : 'Node retired: processors stopped, peer traffic refused',
        retired: true,
        processes_terminated: terminated,
        tor_access_warning: TOR_ACCESS_WARNING,
      };
    },
  });

  ctx.routes.add<{ confirm?: unknown }>({
    method: 'POST',
    path: '/api/v1/system/unretire',
    response: unretireResponse,
    access: WRITE_OR_ADMIN,
    body: CONFIRM_BODY,
    handler: (req) => {
      requireConfirm(req.body, 'Unretiring the node');
      const wasRetired = kernel.isRetired();
      kernel.setRetired(false);
      if (wasRetired) ctx.log.warn('node unretired');
      return { message: wasRetired ? 'Node unretired: processors resumed' : 'The node was not retired', retired: false };
    },
  });

  // out / in (Document 2: "test-mode only"): take the peer transports down and up to test outages with real
  // nodes. Outside NODE_TEST_MODE they do not exist for the caller.
  for (const [path, down] of [['/api/v1/system/out', true], ['/api/v1/system/in', false]] as const) {
    ctx.routes.add({
      method: 'POST',
      path,
      access: WRITE,
      response: transportsResponse,
      body: NO_INPUT,
      handler: () => {
        if (!kernel.node.testMode) throw new ApiError('test_mode_only', 403, 'out and in work only on a node started with NODE_TEST_MODE=true');
        const was = kernel.transportsDown();
        kernel.setTransportsDown(down);
        const state = down ? 'down' : 'up';
        return { message: was === down ? `Peer transports were already ${state}` : `Peer transports ${state}`, transports: state };
      },
    });
  }

  ctx.routes.add<{ type?: SyncType }>({
    method: 'POST',
    path: '/api/v1/system/sync',
    response: syncResponse,
    access: WRITE,
    body: { type: 'object', properties: { type: { enum: [...SYNC_TYPES] } }, additionalProperties: false },
    handler: async (req) => {
      const wanted: readonly SyncType[] = req.body.type ? [req.body.type] : SYNC_TYPES;
      const missing = wanted.filter((t) => !extensions.syncHandler(t));
      // Naming one type needs its handler; "all" needs at least one. Never report a sync that did not run.
      if (missing.length === wanted.length || (req.body.type && missing.length)) {
        const owners = [...new Set(missing.map((t) => SYNC_OWNERS[t]))];
        throw new ApiError(
          'sync_unavailable',
          400,
          `Sync of ${missing.join(', ')} is not available: it needs the ${owners.join(' and ')} plugin${owners.length > 1 ? 's' : ''}, which ${owners.length > 1 ? 'are' : 'is'} not running`,
          { types: missing, plugins: owners },
        );
      }
      const results: Record<string, unknown> = {};
      for (const type of wanted) {
        const handler = extensions.syncHandler(type);
        if (!handler) continue;
        try {
          results[type] = await handler();
        } catch (err) {
          ctx.log.error(`sync of ${type} failed`, { error: err instanceof Error ? err.message : String(err) });
          if (err instanceof ApiError) throw err;
          throw new ApiError('sync_error', 500, `Sync of ${type} failed`, { type, completed: Object.keys(results) });
        }
      }
      return {
        message: 'Sync completed',
        type: req.body.type ?? 'all',
        results,
        skipped: missing,
      };
    },
  });
}
