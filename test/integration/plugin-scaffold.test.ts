/**
 * `node-cli plugin new` (issue 32): the folder of a new plugin, written with no node running and no credentials, whose
 * manifest the node's own check accepts and whose entry imports only the SDK.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../sdk/plugin-manifest.js';
import { nodeCli, nodeCliHuman } from './ledger-support.js';

/** An empty folder and no node: no data directory, no credentials. */
const nowhere = (): { dataDir: string; root: string } => {
  const root = mkdtempSync(join(tmpdir(), 'wallet-node-new-'));
  return { root, dataDir: join(root, 'no-node') };
};

const REPO = join(import.meta.dirname, '..', '..');

/** Type errors of the folder's TypeScript, with the SDK package resolved to this checkout's sdk/sandbox.ts. */
async function typeErrors(dir: string): Promise<string[]> {
  const ts = (await import('typescript')).default;
  const program = ts.createProgram([join(dir, 'index.ts')], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(REPO, 'node_modules', '@types')],
    paths: { 'wallet-node/sdk/sandbox': [join(REPO, 'sdk', 'sandbox.ts')] },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const FILES = ['plugin.json', 'index.ts', 'index.test.js', 'tsconfig.json', 'README.md', 'package.json'];
const imports = (source: string): string[] => [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]!);

describe('node-cli plugin new', () => {
  it('writes a service plugin the node accepts, without a node, and gives the paths with --json', async () => {
    const { root, dataDir } = nowhere();
    const dir = join(root, 'visits');
    const res = await nodeCli({ dataDir }, ['plugin', 'new', 'visits', '--dir', dir]);
    expect(res.code, JSON.stringify(res.body)).toBe(0);
    expect(res.body.data).toEqual({ name: 'visits', kind: 'service', dir, files: FILES.map((f) => join(dir, f)) });
    expect(res.body.metadata.node_id).toBeNull();
    for (const f of FILES) expect(existsSync(join(dir, f))).toBe(true);

    const manifest = parseManifest(readFileSync(join(dir, 'plugin.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'visits', entry: 'index.js', scopes: ['visits:read'] });
    expect(manifest.public_routes.map((r) => r.path)).toEqual(['hello']);
    expect(imports(readFileSync(join(dir, 'index.ts'), 'utf8'))).toEqual(['wallet-node/sdk/sandbox']);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).toEqual(['wallet-node']);
    expect(pkg.devDependencies).toBeUndefined();
    expect(await typeErrors(dir)).toEqual([]);
  });

  it('writes a payback rail with --rail, contributing its rail id', async () => {
    const { root, dataDir } = nowhere();
    const dir = join(root, 'my-rail');
    const res = await nodeCli({ dataDir }, ['plugin', 'new', 'my-rail', '--rail', '--dir', dir]);
    expect(res.code, JSON.stringify(res.body)).toBe(0);
    expect(res.body.data.kind).toBe('rail');
    const manifest = parseManifest(readFileSync(join(dir, 'plugin.json'), 'utf8'));
    expect(manifest.contributes).toEqual({ payback_rail: ['my_rail'] });
    const entry = readFileSync(join(dir, 'index.ts'), 'utf8');
    expect(imports(entry)).toEqual(['wallet-node/sdk/sandbox']);
    expect(entry).toContain("ctx.contribute('payback_rail', rail)");
    expect(await typeErrors(dir)).toEqual([]);
  });

  it('lists the files and the next commands for a person', async () => {
    const { root, dataDir } = nowhere();
    const dir = join(root, 'greeter');
    const res = await nodeCliHuman({ dataDir }, ['plugin', 'new', 'greeter', '--dir', dir]);
    expect(res.code).toBe(0);
    for (const f of FILES) expect(res.out).toContain(join(dir, f));
    expect(res.out).toMatch(/node-cli plugin build \./);
    expect(res.out).toMatch(/node-cli plugin install \./);
  });

  it('refuses a name the node would refuse, and a folder that is not empty, writing nothing', async () => {
    const { root, dataDir } = nowhere();
    const bad = await nodeCli({ dataDir }, ['plugin', 'new', 'Bad Name', '--dir', join(root, 'bad')]);
    expect(bad.code).toBe(1);
    expect(bad.body.error.code).toBe('INVALID_PARAMS');
    expect(existsSync(join(root, 'bad'))).toBe(false);
    const full = join(root, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'mine.txt'), 'keep');
    const taken = await nodeCli({ dataDir }, ['plugin', 'new', 'full', '--dir', full]);
    expect(taken.body.error.message).toMatch(/is not empty/);
    expect(existsSync(join(full, 'plugin.json'))).toBe(false);
  });
});
