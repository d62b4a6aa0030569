import { join } from 'node:path';
import { builtinPlugins } from '../builtin-plugins/index.js';
import { ConfigError, loadConfig } from './config.js';
import { startNode } from './node.js';

/** `wallet-node`: reads the environment, starts the node, prints where it listens, stops cleanly on signals. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`wallet-node: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // The mnemonic must not linger where child processes or a debug dump could see it.
  delete process.env.RESTORE;
  const node = await startNode(config, { builtins: builtinPlugins, echoLogs: true });
  const a = node.addresses();
  process.stdout.write(
    [
      `wallet-node ${node.identity.pubkeyHash}`,
      `  REST API   ${node.baseUrl}/api/v1  (health: ${node.baseUrl}/healthz)`,
      `  http       ${a.http ?? '-'}`,
      `  https      ${a.https ?? '-'}`,
      `  tor        ${a.tor ?? '-'}`,
      `  data       ${config.dataDir}`,
      `  CLI key    ${join(config.dataDir, 'cli.json')}  (used by: npx node-cli info)`,
      '',
    ].join('\n'),
  );
  let exiting = false;
  const shutdown = (signal: string): void => {
    if (exiting) return;
    exiting = true;
    process.stderr.write(`wallet-node: ${signal} received, draining\n`);
    const hardStop = setTimeout(() => process.exit(1), 4500);
    hardStop.unref();
    node.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`wallet-node: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
