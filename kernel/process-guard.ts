import type { Logger } from '../sdk/index.js';
import type { StorageHealth } from './db/storage-health.js';

const describe = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));

/**
 * The daemon's last line against a background task that throws (ARCHITECTURE rule 9). A rejected promise nobody
 * awaited has unwound already: it is logged and the node goes on. An exception thrown out of a callback is absorbed
 * only when the disk refused a write (its transaction rolled back whole, and the state is one the node reports and
 * recovers from); any other is a bug whose effect on memory is unknown, so the process still ends (exit 1, as Node
 * would) and the supervisor starts it from its durable state. Installed by the daemon only: in-process test nodes
 * share their process with the test runner.
 */
export function guardProcess(storage: StorageHealth, log: Logger): () => void {
  const onRejection = (reason: unknown): void => {
    const fault = storage.failed(reason);
    log.error('a background task failed (unhandled rejection); the node goes on', { error: describe(reason), storage: fault });
  };
  const onException = (err: unknown): void => {
    const fault = storage.failed(err);
    if (fault) {
      log.error('a background task failed on the disk; the node goes on', { error: describe(err), storage: fault });
      return;
    }
    log.error('uncaught exception; the node stops', { error: describe(err) });
    process.stderr.write(`${describe(err)}\n`);
    process.exit(1);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
