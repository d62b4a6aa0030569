/**
 * Restoring a node from its 24-word mnemonic (RESTORE or RESTORE_FILE) into a new data directory gives the same
 * identity: pubkey hash, onion address and auth code, as seen through the REST API.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../kernel/config.js';
import { ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const started: TestNode[] = [];
const start = async (env: Record<string, string>): Promise<TestNode> => {
  const t = await startTestNode({ env: { NODE_TOR_ENABLED: 'true', ...env } });
  started.push(t);
  return t;
};

afterAll(async () => {
  for (const t of started) await t.destroy();
});

describe('restore from the mnemonic', () => {
  it('a generated node restored into a new data directory has the same identity', async () => {
    const original = await start({});
    const words = original.node.identity.revealMnemonic();
    expect(words.split(' ')).toHaveLength(24);
    const infoA = await ok(original, 'GET', '/api/v1/wallet/info');

    const restored = await start({ RESTORE: words });
    const infoB = await ok(restored, 'GET', '/api/v1/wallet/info');
    expect(restored.dataDir).not.toBe(original.dataDir);
    expect(infoB.public_key_hash).toBe(infoA.public_key_hash);
    expect(infoB.addresses.tor).toBe(infoA.addresses.tor);
    expect(infoB.addresses.tor).toMatch(/^[a-z2-7]{56}\.onion$/);
    expect(restored.node.identity.authCode).toBe(original.node.identity.authCode);
  });

  it('RESTORE_FILE works the same way and survives a restart without the variable', async () => {
    const original = await start({});
    const dir = mkdtempSync(join(tmpdir(), 'restore-file-'));
    const file = join(dir, 'words.txt');
    writeFileSync(file, `  ${original.node.identity.revealMnemonic().toUpperCase()}  \n`, { mode: 0o600 });
    try {
      const restored = await start({ RESTORE_FILE: file });
      expect(restored.node.identity.pubkeyHash).toBe(original.node.identity.pubkeyHash);
      await restored.restart({ NODE_TOR_ENABLED: 'true' });
      expect((await ok(restored, 'GET', '/api/v1/wallet/info')).public_key_hash).toBe(original.node.identity.pubkeyHash);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a restore phrase that differs from the identity already in the directory', async () => {
    const a = await start({});
    const b = await start({});
    await a.stop();
    await expect(a.restart({ RESTORE: b.node.identity.revealMnemonic() })).rejects.toThrow(/different identity/);
    await a.restart({});
  });

  it('refuses an invalid phrase without echoing it, and both variables at once', async () => {
    const words = Array.from({ length: 24 }, (_, i) => (i === 5 ? 'zebraquartz' : 'abandon')).join(' ');
    const attempt = startTestNode({ env: { RESTORE: words } });
    await expect(attempt).rejects.toThrow(/RESTORE mnemonic is invalid/);
    await attempt.catch((err: Error) => expect(err.message).not.toContain('zebraquartz'));
    expect(() => loadConfig({ RESTORE: words, RESTORE_FILE: '/nonexistent' })).toThrow(ConfigError);
  });
});
