/** Helpers of the sandboxed-plugin tests: author keys, signed bundles of fixture plugins, installed and running. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { TRUSTED_KEYS_FILE } from '../../kernel/data-files.js';
import { generateAuthorKey, signPlugin } from '../../kernel/plugins/sandbox/signature.js';
import type { PluginBundle } from '../../sdk/index.js';
import { call, ok, type Envelope } from '../support/api.js';
import { startTestNode, type StartOptions, type TestNode } from '../support/node.js';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, '..', 'fixtures', 'plugins');
export const REPO = join(here, '..', '..');

export interface AuthorKey {
  privatePem: string;
  publicHex: string;
}

export const newAuthor = (): AuthorKey => generateAuthorKey();

/** A plugin folder's files as `plugin install` sends them, signed by `key` (unsigned with null). */
export function bundleOf(dir: string, key: AuthorKey | null, edit: { manifest?: (m: string) => string; entry?: (e: string) => string } = {}): PluginBundle {
  const manifestText = readFileSync(join(dir, 'plugin.json'), 'utf8');
  const entryName = (JSON.parse(manifestText) as { entry?: string }).entry ?? 'index.js';
  const entryText = readFileSync(join(dir, entryName), 'utf8');
  const signature = key
    ? JSON.stringify(signPlugin({ name: (JSON.parse(manifestText) as { name: string }).name, manifest: Buffer.from(manifestText), entryName, entry: Buffer.from(entryText) }, key.privatePem))
    : null;
  return {
    manifest: edit.manifest ? edit.manifest(manifestText) : manifestText,
    entry: edit.entry ? edit.entry(entryText) : entryText,
    signature,
  };
}

/** The bundle signed afresh over its current manifest and entry (an author's new release). */
export function resigned(bundle: PluginBundle, key: AuthorKey): PluginBundle {
  const m = JSON.parse(bundle.manifest) as { name: string; entry?: string };
  const signature = signPlugin({ name: m.name, manifest: Buffer.from(bundle.manifest), entryName: m.entry ?? 'index.js', entry: Buffer.from(bundle.entry) }, key.privatePem);
  return { ...bundle, signature: JSON.stringify(signature) };
}

export const fixture = (name: string): string => join(FIXTURES, name);

/** Appends the author's key to the node's trusted keys (the operator's file in the data directory). */
export function trust(t: TestNode, key: AuthorKey, name = 'test author'): void {
  const file = join(t.dataDir, TRUSTED_KEYS_FILE);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '# public keys of plugin authors this node trusts\n';
  writeFileSync(file, `${before}${key.publicHex} ${name}\n`);
}

/** A node with its own plugins directory (NODE_PLUGINS_DIR), and an author key it trusts. */
export async function sandboxNode(options: StartOptions = {}): Promise<{ t: TestNode; author: AuthorKey; pluginsDir: string }> {
  const pluginsDir = mkdtempSync(join(tmpdir(), 'wallet-node-plugins-'));
  const t = await startTestNode({ ...options, env: { NODE_PLUGINS_DIR: pluginsDir, ...(options.env ?? {}) } });
  const author = newAuthor();
  trust(t, author);
  return { t, author, pluginsDir };
}

export async function install(t: TestNode, bundle: PluginBundle): Promise<Envelope['data']> {
  return ok(t, 'POST', '/api/v1/plugins', bundle);
}

export async function row(t: TestNode, name: string): Promise<Envelope['data']> {
  return (await ok(t, 'GET', `/api/v1/plugins/${name}`)).plugin;
}

/** Enables the plugins and restarts the node's plugins in place, as an operator would. */
export async function enable(t: TestNode, ...names: string[]): Promise<void> {
  for (const name of names) {
    const res = await call(t, 'POST', `/api/v1/plugins/${name}/enable`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await ok(t, 'POST', '/api/v1/system/restart');
}

/** Installs fixture plugins signed by the trusted author, enables them and restarts. */
export async function run(t: TestNode, author: AuthorKey, ...names: string[]): Promise<void> {
  for (const name of names) await install(t, bundleOf(fixture(name), author));
  await enable(t, ...names);
}

/**
 * An example plugin of plugins/<name>/ as its author ships it: index.ts compiled (as `npm run build` does into
 * dist/plugins/<name>/, here straight from the source so the test never runs a stale build), plugin.json beside it,
 * and plugin.sig written by the author's key (npm run plugin:sign).
 */
export async function builtExample(name: string, key: AuthorKey | null): Promise<string> {
  const ts = (await import('typescript')).default;
  const source = join(REPO, 'plugins', name);
  const out = mkdtempSync(join(tmpdir(), `wallet-node-example-${name}-`));
  const compiled = ts.transpileModule(readFileSync(join(source, 'index.ts'), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: 'index.ts',
  });
  writeFileSync(join(out, 'index.js'), compiled.outputText);
  writeFileSync(join(out, 'plugin.json'), readFileSync(join(source, 'plugin.json')));
  if (key) {
    const bundle = bundleOf(out, key);
    writeFileSync(join(out, 'plugin.sig'), bundle.signature!);
  }
  return out;
}
