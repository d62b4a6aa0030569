/**
 * Install, enable and signature refusals name what fixes them (issue 32): the `--replace` flag of node-cli plugin
 * install, `npm run plugin:sign` and the trusted key file, the development switch, the disable and restart commands.
 * Asserted on the envelope node-cli prints, as an author trying their plugin reads it.
 */
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import { nodeCli } from './ledger-support.js';
import { bundleOf, fixture, newAuthor, sandboxNode, type AuthorKey } from './sandbox-support.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const t of nodes) await t.destroy();
});

/** The hello fixture as a folder an author installs, signed by `key` (unsigned with null). */
function folder(key: AuthorKey | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-node-hello-'));
  cpSync(fixture('hello'), dir, { recursive: true });
  if (key) writeFileSync(join(dir, 'plugin.sig'), bundleOf(dir, key).signature!);
  return dir;
}

const TRUST_FIX = /npm run plugin:sign.*<data dir>\/trusted-plugin-keys.*NODE_PLUGINS_DEV_MODE=true/;

describe('errors that say what to do', () => {
  let t: TestNode;
  let author: AuthorKey;
  beforeAll(async () => {
    ({ t, author } = await sandboxNode());
    nodes.push(t);
  });

  it('an unsigned or untrusted plugin names plugin:sign, the trusted key file and the development switch', async () => {
    const unsigned = await nodeCli(t, ['plugin', 'install', folder(null)]);
    expect(unsigned.code).toBe(1);
    expect(unsigned.body.error).toMatchObject({ code: 'plugin_untrusted', signature: 'unsigned' });
    expect(unsigned.body.error.message).toMatch(TRUST_FIX);
    const stranger = await nodeCli(t, ['plugin', 'install', folder(newAuthor())]);
    expect(stranger.body.error).toMatchObject({ code: 'plugin_untrusted', signature: 'untrusted' });
    expect(stranger.body.error.message).toMatch(TRUST_FIX);
  });

  it('installing twice names the --replace flag; replacing an enabled plugin names disable and restart', async () => {
    const dir = folder(author);
    expect((await nodeCli(t, ['plugin', 'install', dir])).code).toBe(0);
    const twice = await nodeCli(t, ['plugin', 'install', dir]);
    expect(twice.body.error.code).toBe('plugin_exists');
    expect(twice.body.error.message).toMatch(/node-cli plugin install <folder> --replace/);
    expect(twice.body.error.message).not.toMatch(/send replace: true/);

    expect((await nodeCli(t, ['plugin', 'enable', 'hello'])).code).toBe(0);
    const enabled = await nodeCli(t, ['plugin', 'install', dir, '--replace']);
    expect(enabled.body.error.code).toBe('plugin_enabled');
    expect(enabled.body.error.message).toMatch(/node-cli plugin disable hello, then node-cli restart/);
    expect((await nodeCli(t, ['plugin', 'disable', 'hello'])).code).toBe(0);
  });

  it('a plugin changed after signing is refused with how to sign it again', async () => {
    const dir = folder(author);
    writeFileSync(join(dir, 'plugin.json'), bundleOf(dir, null).manifest.replace('"hello"', '"hello2"').replaceAll('hello:', 'hello2:'));
    const refused = await nodeCli(t, ['plugin', 'install', dir]);
    expect(refused.body.error).toMatchObject({ code: 'plugin_signature_invalid', signature: 'invalid' });
    expect(refused.body.error.message).toMatch(/plugin\.json changed after it was signed/);
    expect(refused.body.error.message).toMatch(TRUST_FIX);
  });
});
