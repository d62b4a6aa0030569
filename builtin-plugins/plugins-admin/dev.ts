/**
 * `node-cli plugin dev <folder>`: the author's loop against a development node. It builds the plugin, sends the
 * build to the node, which swaps the plugin's isolate without a restart (POST /api/v1/plugins/dev), then watches the
 * folder (fs.watch, event-driven) and does it again on every change. Build problems and the node's refusals are
 * printed with the source's file and line; the loop goes on until the command is stopped.
 */
import { watch } from 'node:fs';
import { basename } from 'node:path';
import type { CliContext } from '../../sdk/cli.js';
import { BuildError, bundlePlugin, withInlineMap } from '../../sdk/plugin-build.js';

/**
 * How long the folder must stay quiet before a rebuild: a save is often a truncation then a write (two events), and a
 * build between them bundles an empty file, which the node would load and fail.
 */
const QUIET_MS = 100;

/** Changes that are the build's own output or not the plugin's sources. */
const IGNORED = /(^|[\\/])(node_modules|\.git)([\\/]|$)|\.map$|(^|[\\/])\./;

interface DevAnswer {
  plugin: { name: string; version: string; status: string; error: string | null };
  reload_ms: number;
}

/** One build and reload; prints what happened and never throws for the plugin's own mistakes. Answers the entry built. */
async function reload(ctx: CliContext, dir: string): Promise<string | null> {
  const started = performance.now();
  let bundle;
  try {
    bundle = await bundlePlugin(dir);
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    ctx.out.warn(`build failed: ${err.message.split('\n')[0]}`);
    for (const problem of err.problems) ctx.out.warn(`  ${problem}`);
    return null;
  }
  const built = performance.now();
  const res = await ctx.api.raw('POST', '/api/v1/plugins/dev', { body: { manifest: bundle.manifestText, entry: withInlineMap(bundle) } });
  const body = res.body as { data?: DevAnswer; error?: { code: string; message: string } };
  if (res.status >= 300 || !body.data) {
    ctx.out.warn(`the node refused ${bundle.manifest.name}: ${body.error?.code ?? res.status}: ${body.error?.message ?? 'no answer'}`);
    return bundle.manifest.entry;
  }
  const p = body.data.plugin;
  const timing = `build ${Math.round(built - started)} ms, node ${body.data.reload_ms} ms, ${Math.round(performance.now() - started)} ms in all`;
  if (p.error) ctx.out.warn(`${p.name} ${p.version} did not start (${timing}): ${p.error}`);
  else ctx.out.line(`${p.name} ${p.version} reloaded: ${p.status} (${timing})`);
  return bundle.manifest.entry;
}

/** Runs the loop; the promise settles only if the watcher fails. */
export async function devLoop(ctx: CliContext, dir: string): Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  /** The built module, which `plugin build` may write into the folder: not a change of the sources. */
  let entry = 'index.js';
  const cycle = async (): Promise<void> => {
    do {
      again = false;
      try {
        entry = (await reload(ctx, dir)) ?? entry;
      } catch (err) {
        ctx.out.warn(`reload failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    } while (again);
    running = null;
  };
  await (running = cycle());
  ctx.out.line(`watching ${dir} (Ctrl-C stops)`);
  let quiet: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (running) again = true;
    else running = cycle();
  };
  await new Promise<void>((_done, fail) => {
    const watcher = watch(dir, { recursive: true }, (_event, file) => {
      if (!file || IGNORED.test(file) || basename(file) === entry) return;
      clearTimeout(quiet);
      quiet = setTimeout(changed, QUIET_MS);
    });
    watcher.on('error', fail);
  });
}
