/**
 * Boot recovery: before the node opens anything in its data directory, builtin plugins that define `recover` may
 * fill a new, empty directory with a state they recovered (a snapshot they kept elsewhere). The kernel gives them the
 * directory's listing, the environment, the storage keys of the seed phrase being restored, its snapshot tools and
 * one `install`; the policy (which variable asks for it, where the state comes from, how it is protected) is theirs.
 */
import { readdirSync } from 'node:fs';
import type { BootRecoveryContext } from '../sdk/index.js';
import { LOCK_FILE } from './db/open.js';
import { checkDatabase, installState, scratchDir, SNAPSHOT_FILES } from './db/snapshot.js';
import { Identity } from './identity.js';
import type { LogSink } from './log.js';
import type { BuiltinPlugin } from './plugins/host.js';

/** The label under which `ctx.identity.storageKey(label)` derives a plugin's keys (kept apart from the kernel's). */
export const pluginKeyLabel = (label: string): string => `plugin:${label}`;

/** Only `NODE_*` variables reach plugins: RESTORE and the like stay with the kernel. */
export function nodeEnvironment(env: Record<string, string | undefined>): (name: string) => string | undefined {
  return (name) => (name.startsWith('NODE_') ? env[name] : undefined);
}

export class BootRecoveryError extends Error {
  constructor(plugin: string, cause: unknown) {
    super(`boot recovery (${plugin}): ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'BootRecoveryError';
  }
}

export interface BootRecoveryOptions {
  dataDir: string;
  builtins: readonly BuiltinPlugin[];
  env: Record<string, string | undefined>;
  restoreMnemonic: string | null;
  logs: LogSink;
}

/** Runs every `recover` hook in turn; the first that throws stops the start (BootRecoveryError). */
export async function runBootRecovery(options: BootRecoveryOptions): Promise<void> {
  const hooks = options.builtins.filter((p) => p.definition.recover);
  if (hooks.length === 0) return;
  const entries = readdirSync(options.dataDir).filter((name) => name !== LOCK_FILE);
  // Derived only when a hook asks: a start that recovers nothing must fail on a bad phrase where it always did.
  let identity: Identity | null = null;
  const restoring = (): Identity | null => {
    if (!options.restoreMnemonic) return null;
    identity ??= Identity.fromMnemonic(options.restoreMnemonic);
    return identity;
  };
  let installed = false;
  for (const plugin of hooks) {
    const name = plugin.manifest.name;
    const boot: BootRecoveryContext = {
      dataDir: options.dataDir,
      entries,
      env: nodeEnvironment(options.env),
      get restoring() {
        const id = restoring();
        return id ? { pubkeyHash: id.pubkeyHash, storageKey: (label: string) => id.storageKey(pluginKeyLabel(label)) } : null;
      },
      snapshots: { ...SNAPSHOT_FILES, scratch: () => scratchDir(options.dataDir), check: checkDatabase },
      install: (files) => {
        if (installed) throw new Error('a recovered state was installed already in this start');
        installState(options.dataDir, files);
        installed = true;
      },
      log: options.logs.logger(name),
    };
    try {
      await plugin.definition.recover!(boot);
    } catch (err) {
      throw new BootRecoveryError(name, err);
    }
  }
}
