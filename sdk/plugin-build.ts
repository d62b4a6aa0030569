/**
 * A third-party plugin's TypeScript entry bundled by esbuild into the one ES module the manifest names, after the
 * node's own manifest check, with the sandbox's rules checked at build time: a plugin imports the SDK and its own
 * files, nothing else, and names no global its isolate lacks (the isolate would fail at its start or mid-call).
 * `node-cli plugin build` writes the module; the test kit (sdk/testing.ts) and `plugin dev` load it from memory.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { ManifestError, parseManifest, SDK_SPECIFIER, type ThirdPartyManifest } from './plugin-manifest.js';
import { ABSENT_GLOBALS } from './sandbox-globals.js';

export class BuildError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(problems.length ? `${message}\n${problems.map((p) => `  ${p}`).join('\n')}` : message);
  }
}

export interface BuildResult {
  name: string;
  version: string;
  source: string;
  output: string;
  bytes: number;
  ms: number;
}

export interface Bundle {
  manifest: ThirdPartyManifest;
  manifestText: string;
  /** The TypeScript entry, and the module built from it. */
  source: string;
  output: string;
  code: string;
  /** The source map of `code` (JSON text), whose sources are relative to the plugin's folder. */
  map: string;
}

/** An identifier no plugin source can hold by accident: esbuild puts it where the source names a missing global. */
const MARK = '__wn_absent_global__';

/** esbuild is a development dependency of the node: a production install has no bundler, and says so. */
async function loadEsbuild(): Promise<typeof import('esbuild')> {
  try {
    return await import('esbuild');
  } catch {
    throw new BuildError('esbuild is not installed: run npm install esbuild in the node\'s folder (a development dependency)');
  }
}

function readManifest(dir: string): { manifest: ThirdPartyManifest; text: string } {
  const file = join(dir, 'plugin.json');
  if (!existsSync(file)) throw new BuildError(`${dir} has no plugin.json (node-cli plugin new <name> writes a plugin folder)`);
  const text = readFileSync(file, 'utf8');
  try {
    return { manifest: parseManifest(text), text };
  } catch (err) {
    if (err instanceof ManifestError) throw new BuildError(`plugin.json: ${err.message}`);
    throw err;
  }
}

/**
 * Where the bundle names a missing global, as `file:line:col` of the source. esbuild replaces only unbound
 * identifiers (a local `process` is left alone), so every mark is a real use.
 */
function absentGlobals(dir: string, code: string, map: string): string[] {
  const lookup = new SourceMap(JSON.parse(map) as ConstructorParameters<typeof SourceMap>[0]);
  const problems: string[] = [];
  code.split('\n').forEach((text, line) => {
    for (const m of text.matchAll(new RegExp(`${MARK}(\\w+)`, 'g'))) {
      const name = m[1]!;
      const at = lookup.findEntry(line, m.index) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      const where = at.originalSource ? `${relative(dir, resolve(dir, at.originalSource))}:${at.originalLine! + 1}:${at.originalColumn! + 1}` : `line ${line + 1}`;
      problems.push(`${where}: ${name} is not available in the sandbox: ${ABSENT_GLOBALS.get(name)}`);
    }
  });
  return problems;
}

/** Bundles the plugin of `dir` (`<entry>.ts` beside plugin.json) in memory, refusing what the sandbox would refuse. */
export async function bundlePlugin(dir: string): Promise<Bundle> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BuildError(`${dir} is not a folder`);
  const { manifest, text: manifestText } = readManifest(dir);
  const source = join(dir, manifest.entry.replace(/\.m?js$/, '.ts'));
  if (!existsSync(source)) throw new BuildError(`no ${relative(dir, source)} beside plugin.json (the entry ${manifest.entry} is built from it)`);
  const output = join(dir, manifest.entry);
  const esbuild = await loadEsbuild();
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [source],
      absWorkingDir: dir,
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      outfile: output,
      sourcemap: 'external',
      define: Object.fromEntries([...ABSENT_GLOBALS.keys()].map((name) => [name, `${MARK}${name}`])),
      plugins: [
        {
          name: 'sandbox-imports',
          setup(b) {
            b.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined;
              if (SDK_SPECIFIER.test(args.path)) return { path: args.path, external: true };
              if (args.path.startsWith('.')) {
                if (!relative(dir, resolve(args.resolveDir, args.path)).startsWith('..')) return undefined;
                return { errors: [{ text: `imports "${args.path}", outside the plugin's folder` }] };
              }
              return { errors: [{ text: `imports "${args.path}": a sandboxed plugin imports only wallet-node/sdk/sandbox and its own files` }] };
            });
          },
        },
      ],
    });
  } catch (err) {
    const errors = (err as { errors?: import('esbuild').Message[] }).errors;
    if (!errors) throw err;
    const problems = errors.map((e) => (e.location ? `${e.location.file}:${e.location.line}:${e.location.column + 1}: ${e.text}` : e.text));
    throw new BuildError(`${manifest.name} was not built:`, problems);
  }
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text;
  const code = result.outputFiles.find((f) => !f.path.endsWith('.map'))!.text;
  const problems = absentGlobals(dir, code, map);
  if (problems.length) throw new BuildError(`${manifest.name} was not built:`, problems);
  return { manifest, manifestText, source, output, code, map };
}

/**
 * The module with its source map inline, for a node or the test kit to place a fault in the sources (`index.ts:12:5`).
 * `plugin build` writes the map beside the module instead: an installed plugin carries only its module.
 */
export function withInlineMap(bundle: Bundle): string {
  const inline = `//# sourceMappingURL=data:application/json;base64,${Buffer.from(bundle.map).toString('base64')}`;
  return `${bundle.code.replace(/\/\/# sourceMappingURL=\S+\s*$/, '')}${inline}\n`;
}

/** Builds the plugin of `dir` into the entry its manifest names. */
export async function buildPlugin(dir: string): Promise<BuildResult> {
  const started = performance.now();
  const bundle = await bundlePlugin(dir);
  writeFileSync(bundle.output, bundle.code);
  writeFileSync(`${bundle.output}.map`, bundle.map);
  const m = bundle.manifest;
  return { name: m.name, version: m.version, source: bundle.source, output: bundle.output, bytes: Buffer.byteLength(bundle.code), ms: Math.round(performance.now() - started) };
}
