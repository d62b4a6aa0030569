// Writes the node's Tor v3 onion service key into a HiddenServiceDir, so the .onion address Tor serves is the
// one the node derives from its seed phrase (and announces to its peers).
//
//   node /app/docker/write-onion-keys.js <HiddenServiceDir>
//
// The configuration is read exactly as wallet-node reads it (NODE_DATA_DIR, RESTORE / RESTORE_FILE), and the
// identity is opened the same way: on the very first start this creates it, or restores it from RESTORE.
// Prints the onion address on stdout. Exit code 2 on a configuration error, 1 on anything else.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../dist/kernel/config.js';
import { loadOrCreateIdentity } from '../dist/kernel/identity.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: write-onion-keys.js <HiddenServiceDir>\n');
  process.exit(1);
}

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

try {
  const identity = loadOrCreateIdentity(
    config.dataDir,
    config.restoreMnemonic ? { restoreMnemonic: config.restoreMnemonic } : {},
  );
  const files = identity.torHiddenServiceFiles();

  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700); // Tor refuses a HiddenServiceDir that others can read
  const write = (name, data) => {
    const tmp = join(dir, `.${name}.tmp`);
    writeFileSync(tmp, data, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, join(dir, name));
  };
  write('hs_ed25519_secret_key', files.secretKey);
  write('hs_ed25519_public_key', files.publicKey);
  write('hostname', files.hostname);
  process.stdout.write(files.hostname);
} catch (err) {
  // IdentityError messages name files and causes, never the seed phrase.
  process.stderr.write(`wallet-node: cannot prepare the onion service key: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
