/**
 * `node-cli plugin build` (issue 32): a scaffolded plugin bundles into the one module its manifest names, which a
 * node then installs and serves; imports the sandbox refuses and manifests the node refuses are reported at build
 * time, with the file and line.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import { nodeCli } from './ledger-support.js';
import { bundleOf, REPO, sandboxNode } from './sandbox-support.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const t of nodes) await t.destroy();
});

/** A fresh folder holding `node-cli plugin new <name>`'s output, written with no node. */
async function scaffolded(name: string): Promise<{ dir: string; dataDir: string }> {
  const root = mkdtempSync(join(tmpdir(), 'wallet-node-build-'));
  const dataDir = join(root, 'no-node');
  const dir = join(root, name);
  expect((await nodeCli({ dataDir }, ['plugin', 'new', name, '--dir', dir])).code).toBe(0);
  return { dir, dataDir };
}

describe('node-cli plugin build', () => {
  it('bundles a scaffolded plugin into index.js, which a node installs and serves', async () => {
    const { dir, dataDir } = await scaffolded('visits');
    const built = await nodeCli({ dataDir }, ['plugin', 'build', dir]);
    expect(built.code, JSON.stringify(built.body)).toBe(0);
    expect(built.body.data).toMatchObject({ name: 'visits', version: '0.1.0', source: join(dir, 'index.ts'), output: join(dir, 'index.js') });
    const module = readFileSync(join(dir, 'index.js'), 'utf8');
    expect([...module.matchAll(/from\s*"([^"]+)"/g)].map((m) => m[1])).toEqual(['wallet-node/sdk/sandbox']);

    const { t, author } = await sandboxNode();
    nodes.push(t);
    writeFileSync(join(dir, 'plugin.sig'), bundleOf(dir, author).signature!);
    expect((await nodeCli(t, ['plugin', 'install', dir])).code).toBe(0);
    expect((await nodeCli(t, ['plugin', 'enable', 'visits'])).code).toBe(0);
    expect((await nodeCli(t, ['restart'])).code).toBe(0);
    const res = await fetch(`${t.node.baseUrl}/p/visits/hello`);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ text: 'hello', visits: 1 });
  });

  it('reports imports other than the SDK and its own files, with file and line, and writes nothing', async () => {
    const { dir, dataDir } = await scaffolded('leaky');
    const entry = join(dir, 'index.ts');
    writeFileSync(entry, `import { readFileSync } from 'node:fs';\nimport { x } from '../elsewhere.js';\n${readFileSync(entry, 'utf8')}\nexport const y = [readFileSync, x];\n`);
    const res = await nodeCli({ dataDir }, ['plugin', 'build', dir]);
    expect(res.code).toBe(1);
    expect(res.body.error.code).toBe('PLUGIN_BUILD_FAILED');
    expect(res.body.error.problems).toEqual([
      expect.stringMatching(/index\.ts:1:\d+: imports "node:fs": a sandboxed plugin imports only wallet-node\/sdk\/sandbox/),
      expect.stringMatching(/index\.ts:2:\d+: imports "\.\.\/elsewhere\.js", outside the plugin's folder/),
    ]);
    expect(() => readFileSync(join(dir, 'index.js'))).toThrow();
  });

  it('reports globals the isolate lacks, with file and line, and leaves a local of the same name alone', async () => {
    const { dir, dataDir } = await scaffolded('globby');
    writeFileSync(
      join(dir, 'util.ts'),
      ['export const home = () => process.env.HOME;', 'export const later = (f: () => void) => setTimeout(f, 10);', 'export const local = (fetch: number) => fetch + 1;', ''].join('\n'),
    );
    const entry = join(dir, 'index.ts');
    writeFileSync(entry, `import { home, later, local } from './util.js';\n${readFileSync(entry, 'utf8')}\nexport const all = [home, later, local, () => new Function('1')];\n`);
    const res = await nodeCli({ dataDir }, ['plugin', 'build', dir]);
    expect(res.body.error.code).toBe('PLUGIN_BUILD_FAILED');
    expect(res.body.error.problems).toEqual([
      expect.stringMatching(/^util\.ts:1:\d+: process is not available in the sandbox: there is no process/),
      expect.stringMatching(/^util\.ts:2:\d+: setTimeout is not available in the sandbox: there are no timers/),
      expect.stringMatching(/^index\.ts:\d+:\d+: Function is not available in the sandbox: there is no code from strings/),
    ]);
    expect(() => readFileSync(join(dir, 'index.js'))).toThrow();
  });

  it('checks plugin.json as the node does before building', async () => {
    const { dir, dataDir } = await scaffolded('checked');
    const manifest = join(dir, 'plugin.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"checked:read"', '"other:read"'));
    const res = await nodeCli({ dataDir }, ['plugin', 'build', dir]);
    expect(res.body.error).toMatchObject({ code: 'PLUGIN_BUILD_FAILED', message: 'plugin.json: scopes[0] must be "checked:<verb>"' });
  });

  it('builds the example rail of plugins/aud-bank', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wallet-node-aud-bank-'));
    cpSync(join(REPO, 'plugins', 'aud-bank'), dir, { recursive: true });
    const res = await nodeCli({ dataDir: join(dir, 'no-node') }, ['plugin', 'build', dir]);
    expect(res.code, JSON.stringify(res.body)).toBe(0);
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).toContain('au_bank');
  });
});
