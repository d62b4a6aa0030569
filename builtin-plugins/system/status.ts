import type { JobsMechanism, KernelApi, SettingsApi } from '../../sdk/index.js';
import type { Extensions } from './extensions.js';
import type { UpdateChecker, UpdateStatus } from './update-check.js';

/**
 * GET /system/status, Document 1's "System status" resource, field for field. It sits on a benchmark
 * (5,000 req/s), so it touches no file and no network: the update object is the checker's cached view,
 * settings are in memory, and the database probe is remembered for one second.
 */

/** The background processors Document 1 names. A plugin's job joins one with `processor: 'p2p'` etc. */
export const PROCESSORS = ['p2p', 'transaction', 'cleanup'] as const;
export type ProcessorFlags = Record<(typeof PROCESSORS)[number], boolean>;

export function processorFlags(jobs: JobsMechanism): ProcessorFlags {
  return { p2p: jobs.processorRunning('p2p'), transaction: jobs.processorRunning('transaction'), cleanup: jobs.processorRunning('cleanup') };
}

export interface SystemStatus {
  status: 'operational';
  version: string;
  environment: string;
  database: 'healthy' | 'unhealthy';
  processors: ProcessorFlags;
  update: UpdateStatus;
  analytics: { enabled: boolean; consent_pending: boolean; last_submitted: string | null; opt_in_at: string | null };
  timestamp: string;
}

const DB_PROBE_TTL_MS = 1000;

/** The database probe, cached for a second: a failing disk still shows within a second. */
export function databaseProbe(kernel: KernelApi): () => 'healthy' | 'unhealthy' {
  let at = 0;
  let last: 'healthy' | 'unhealthy' = 'healthy';
  return () => {
    const now = Date.now();
    if (now - at >= DB_PROBE_TTL_MS) {
      last = kernel.databaseHealthy() ? 'healthy' : 'unhealthy';
      at = now;
    }
    return last;
  };
}

export function statusBuilder(
  kernel: KernelApi,
  settings: SettingsApi,
  updates: UpdateChecker,
  extensions: Extensions,
  database: () => 'healthy' | 'unhealthy',
): () => SystemStatus {
  return () => {
    const enabled = settings.get<boolean>('analyticsEnabled');
    return {
      status: 'operational',
      version: kernel.node.version,
      environment: kernel.node.environment,
      database: database(),
      processors: processorFlags(kernel.jobs),
      update: updates.status(),
      analytics: {
        enabled,
        // Pending: the operator has neither switched analytics on nor answered the question.
        consent_pending: !enabled && !settings.get<boolean>('analyticsConsentAsked'),
        last_submitted: extensions.analyticsLastSubmitted(),
        opt_in_at: settings.get<string | null>('analyticsOptInAt'),
      },
      timestamp: new Date().toISOString(),
    };
  };
}
