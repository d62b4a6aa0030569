/**
 * `node-cli plugin build <folder>`: the plugin's TypeScript entry bundled by esbuild into the one ES module the
 * manifest names, after the node's own manifest check, with the sandbox's import rule checked at build time: a
 * plugin imports the SDK and its own files, nothing else (the isolate would refuse the rest at its start).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ManifestError, parseManifest, SDK_SPECIFIER } from '../../sdk/plugin-manifest.js';

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

/** esbuild is a development dependency of the node: a production install has no bundler, and says so. */
async function loadEsbuild(): Promise<typeof import('esbuild')> {
  try {
    return await import('esbuild');
  } catch {
    throw new BuildError('esbuild is not installed: run npm install esbuild in the node\'s folder (a development dependency)');
  }
}

function readManifest(dir: string): ReturnType<typeof parseManifest> {
  const file = join(dir, 'plugin.json');
  if (!existsSync(file)) throw new BuildError(`${dir} has no plugin.json (node-cli plugin new <name> writes a plugin folder)`);
  try {
    return parseManifest(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof ManifestError) throw new BuildError(`plugin.json: ${err.message}`);
    throw err;
  }
}

/** Builds the plugin of `dir`: `<entry>.ts` beside plugin.json into the entry the manifest names. */
export async function buildPlugin(dir: string): Promise<BuildResult> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BuildError(`${dir} is not a folder`);
  const manifest = readManifest(dir);
  const source = join(dir, manifest.entry.replace(/\.m?js$/, '.ts'));
  if (!existsSync(source)) throw new BuildError(`no ${relative(dir, source)} beside plugin.json (the entry ${manifest.entry} is built from it)`);
  const output = join(dir, manifest.entry);
  const esbuild = await loadEsbuild();
  const started = performance.now();
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
  const code = result.outputFiles[0]!.contents;
  writeFileSync(output, code);
  return { name: manifest.name, version: manifest.version, source, output, bytes: code.byteLength, ms: Math.round(performance.now() - started) };
}
