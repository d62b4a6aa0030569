/**
 * The SDK as a package (issue 32): a folder outside the node's tree, written by `node-cli plugin new`, with only the
 * wallet-node package installed (this checkout linked as node_modules/wallet-node, as `npm install <folder>` links
 * it), type-checks against `wallet-node/sdk/sandbox` and runs its own tests through `wallet-node/sdk/testing` under
 * node's test runner, with no node running. Needs `npm run build` (the package's entries are in dist/).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeCli } from './ledger-support.js';
import { REPO } from './sandbox-support.js';

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, out }));
  });
}

/** The package installed into a plugin folder as a link, and nothing else. */
function linkPackage(dir: string): void {
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO, join(dir, 'node_modules', 'wallet-node'), 'dir');
}

/** `plugin new` into a temp folder, with the package installed as a link and nothing else. */
async function outside(name: string, kind: string[] = []): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'wallet-node-author-'));
  const dir = join(root, name);
  expect((await nodeCli({ dataDir: join(root, 'no-node') }, ['plugin', 'new', name, ...kind, '--dir', dir])).code).toBe(0);
  linkPackage(dir);
  return dir;
}

const tsc = (dir: string): Promise<{ code: number; out: string }> => run(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], dir);
const npmTest = (dir: string): Promise<{ code: number; out: string }> => run(process.execPath, ['--no-node-snapshot', '--test', 'index.test.js'], dir);

describe('the SDK package, from a folder outside the node', () => {
  beforeAll(() => {
    for (const entry of ['sandbox.js', 'sandbox.d.ts', 'testing.js', 'testing.d.ts']) {
      expect(existsSync(join(REPO, 'dist', 'sdk', entry)), `dist/sdk/${entry}: run npm run build`).toBe(true);
    }
  });

  it("a scaffolded service's own tests pass with only the SDK package installed, and its types resolve", async () => {
    const dir = await outside('visits');
    const tests = await npmTest(dir);
    expect(tests.out).toMatch(/# pass 3\b/);
    expect(tests.code, tests.out).toBe(0);
    expect((await tsc(dir)).out).toBe('');

    // The types are the SDK's, not `any`: a misuse of the context is an error.
    writeFileSync(join(dir, 'wrong.ts'), "import type { SandboxPluginContext } from 'wallet-node/sdk/sandbox';\nexport const f = (ctx: SandboxPluginContext) => ctx.store.get(42);\n");
    const wrong = await tsc(dir);
    expect(wrong.code).not.toBe(0);
    expect(wrong.out).toMatch(/wrong\.ts\(2,\d+\): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'/);
  });

  it("a scaffolded rail's own tests, the shared rail vectors among them, pass the same way", async () => {
    const dir = await outside('eu-rail', ['--rail']);
    const tests = await npmTest(dir);
    expect(tests.out).toMatch(/# pass 2\b/);
    expect(tests.code, tests.out).toBe(0);
    expect((await tsc(dir)).out).toBe('');
  });

  it.each(['aud-bank', 'paid-notes'])("the %s example, on the scaffold's layout, passes its own tests and type-checks the same way", async (name) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'wallet-node-example-')), name);
    cpSync(join(REPO, 'plugins', name), dir, { recursive: true });
    linkPackage(dir);
    const tests = await npmTest(dir);
    expect(tests.out).toMatch(/# pass 3\b/);
    expect(tests.code, tests.out).toBe(0);
    expect((await tsc(dir)).out).toBe('');
  });
});
