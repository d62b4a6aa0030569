/**
 * node-cli commands of the plugins-admin plugin:
 *
 *   plugin [list]
 *   plugin show <name>
 *   plugin enable|disable <name>
 *   plugin public-routes <name> on|off
 *   plugin uninstall <name>
 *   plugin install <folder or archive> [--replace]
 *   plugin limits <name> [--memory MB] [--cpu MS] [--store KB] [--reset]
 *   plugin settings <name> [key=value ...]
 *   plugin new <name> [--rail|--service] [--dir <folder>]   (on this machine, no node needed)
 *   plugin build <folder>                                    (idem)
 *   plugin dev [folder]                                      (a development node: rebuild and swap on every change)
 */
import { resolve } from 'node:path';
import type { ResponseData } from '../../sdk/index.js';
import { defineCliCommands, localCommand, parseIntOption, type CliContext } from '../../sdk/cli.js';
import { allPages } from '../../sdk/cli-paging.js';
import { BundleError, readBundle } from './bundle.js';
import { BuildError, buildPlugin } from '../../sdk/plugin-build.js';
import { devLoop } from './dev.js';
import { scaffold, ScaffoldError } from './scaffold.js';

type PluginRow = ResponseData['GET /api/v1/plugins/{name}']['plugin'];

/** A setting value from the command line: `null` restores the default; the node reads the rest in the setting's type. */
const settingValue = (text: string): string | null => (text === 'null' ? null : text);

const RESTART_NOTE = 'Restart the node to apply: node-cli restart';

const pluginPath = (name: string, action = ''): string => `/api/v1/plugins/${encodeURIComponent(name)}${action ? `/${action}` : ''}`;

const SWITCH: Record<string, boolean> = { on: true, off: false, true: true, false: false, enable: true, disable: false, yes: true, no: false };

function list(ctx: CliContext, data: { plugins: readonly PluginRow[] }): void {
  const o = ctx.out;
  o.table(
    data.plugins,
    [
      { key: 'name', header: 'NAME' },
      { key: 'version', header: 'VERSION' },
      { key: 'enabled', header: 'ENABLED' },
      { key: 'status', header: 'STATUS' },
      { key: 'license', header: 'LICENSE' },
      { key: 'builtin', header: 'SOURCE', format: (_v, row) => (row.builtin ? 'builtin' : `installed, ${row.sandbox?.signature.status ?? 'unsigned'}`) },
      {
        key: 'public_routes',
        header: 'PUBLIC ROUTES',
        format: (_v, row) => (row.public_routes.length ? `${row.public_routes_served ? 'served' : row.public_routes_enabled ? 'on' : 'off'} (${row.public_routes.length})` : '-'),
      },
    ],
    { title: 'Installed plugins', empty: 'No plugins installed.' },
  );
  const failed = data.plugins.filter((p) => p.error);
  for (const p of failed) o.line(`  ${p.name}: ${p.error}`);
  if (data.plugins.some((p) => p.restart_required)) {
    o.line();
    o.line(`Some changes wait for a restart. ${RESTART_NOTE}`);
  }
}

export default defineCliCommands({
  plugin: 'plugins-admin',
  register(program, ctx) {
    const plugin = program
      .command('plugin')
      .summary('list plugins, enable or disable them, switch their public routes, uninstall')
      .description(
        'Manages the plugins of the node. Enable and disable only record the choice: it takes effect when the node ' +
          'restarts (node-cli restart). Essential plugins cannot be disabled. With no subcommand: list.',
      );

    plugin
      .command('list', { isDefault: true })
      .summary('list installed plugins')
      .action(async () => {
        const { rows, data: last } = await allPages<ResponseData['GET /api/v1/plugins']['plugins'][number]>(ctx.api, '/api/v1/plugins', 'plugins');
        const data = { plugins: rows, count: rows.length, public_routes_ceiling: last.public_routes_ceiling };
        ctx.out.success(data, () => list(ctx, data));
      });

    plugin
      .command('show')
      .summary('show one plugin')
      .argument('<name>')
      .action(async (name: string) => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/plugins/{name}']>(pluginPath(name));
        const p = data.plugin;
        ctx.out.success(data, () =>
          ctx.out.kv(
            [
              ['Name', p.name],
              ['Version', p.version],
              ['Description', p.description],
              ['Enabled', p.enabled],
              ['Status', p.status],
              ['Builtin', p.builtin],
              ['Essential', p.essential],
              ['Author', p.author],
              ['License', p.license],
              ['Homepage', p.homepage],
              ['Public routes', p.public_routes.map((a) => `/p/${p.name}/${a}`)],
              ['Routes switch', p.public_routes.length ? (p.public_routes_enabled ? 'on' : 'off') : null],
              ['Restart needed', p.restart_required],
              ['Error', p.error],
              ...(p.sandbox
                ? ([
                    ['Signature', `${p.sandbox.signature.status}${p.sandbox.signature.signer ? ` (${p.sandbox.signature.signer})` : ''}`],
                    ['Permissions', p.sandbox.permissions],
                    ['Contributes', Object.entries(p.sandbox.contributes).map(([point, ids]) => `${point}: ${ids.join(', ')}`)],
                    ['Limits', `${p.sandbox.limits.memory_mb} MB, ${p.sandbox.limits.cpu_ms} ms CPU a call, store ${p.sandbox.limits.store_kb} KB`],
                    ['Store', `${p.sandbox.store.bytes} bytes in ${p.sandbox.store.keys} keys`],
                    ['Settings', Object.entries(p.sandbox.settings).map(([k, v]) => `${k}=${JSON.stringify(v)}`)],
                    ['Failures', p.sandbox.failures],
                  ] as [string, unknown][])
                : []),
            ],
            { title: `Plugin ${p.name}` },
          ),
        );
      });

    for (const verb of ['enable', 'disable'] as const) {
      plugin
        .command(verb)
        .summary(`${verb} a plugin (takes effect at the next restart)`)
        .argument('<name>')
        .action(async (name: string) => {
          const data = await ctx.api.post<ResponseData[`POST /api/v1/plugins/{name}/${typeof verb}`]>(pluginPath(name, verb));
          ctx.out.success(data, () => {
            ctx.out.line(data.message.replace(/\s*POST \/api\/v1\/system\/restart to apply\.?/, ''));
            if (data.permissions_message) ctx.out.line(data.permissions_message);
            if (data.public_routes_message) ctx.out.line(data.public_routes_message);
            if (data.restart_required) ctx.out.line(RESTART_NOTE);
          });
        });
    }

    plugin
      .command('public-routes')
      .summary('switch the public routes (/p/<name>/...) of a plugin on or off')
      .argument('<name>')
      .argument('<state>', 'on or off')
      .action(async (name: string, state: string) => {
        const enabled = SWITCH[state.toLowerCase()];
        if (enabled === undefined) return ctx.fail('INVALID_PARAMS', `expected on or off, got "${state}"`);
        const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/{name}/public-routes']>(pluginPath(name, 'public-routes'), { enabled });
        ctx.out.success(data, data.message);
      });

    plugin
      .command('install')
      .summary('install a third-party plugin from a folder or an archive (the node checks it first; it stays disabled)')
      .argument('<path>', 'a plugin folder (plugin.json, its entry, plugin.sig) or a .tar.gz of one')
      .option('--replace', 'replace the installed plugin of the same name (disabled, not running), keeping its data')
      .action(async (path: string, opts: { replace?: boolean }) => {
        let bundle;
        try {
          bundle = readBundle(resolve(path));
        } catch (err) {
          if (err instanceof BundleError) return ctx.fail('INVALID_PARAMS', `${path}: ${err.message}`);
          throw err;
        }
        const data = await ctx.api.post<ResponseData['POST /api/v1/plugins']>('/api/v1/plugins', { ...bundle, ...(opts.replace ? { replace: true } : {}) });
        const p = data.plugin;
        ctx.out.success(data, () => {
          ctx.out.line(`Plugin ${p.name} ${p.version} installed, disabled (signature: ${p.sandbox?.signature.status ?? 'unsigned'}).`);
          if (p.sandbox?.permissions.length) ctx.out.line(`It asks for: ${p.sandbox.permissions.join(', ')}`);
          ctx.out.line(`Enable it with: node-cli plugin enable ${p.name}, then ${RESTART_NOTE.charAt(0).toLowerCase()}${RESTART_NOTE.slice(1)}`);
        });
      });

    plugin
      .command('limits')
      .summary("set a third-party plugin's memory, CPU-per-call and store limits (applied at its next start)")
      .argument('<name>')
      .option('--memory <mb>', 'memory of its isolate, MB', parseIntOption('--memory', 1))
      .option('--cpu <ms>', 'CPU time of one call, ms', parseIntOption('--cpu', 1))
      .option('--store <kb>', 'size of its key-value store, KB', parseIntOption('--store', 1))
      .option('--reset', 'back to the defaults')
      .action(async (name: string, opts: { memory?: number; cpu?: number; store?: number; reset?: boolean }) => {
        const body = opts.reset
          ? { memory_mb: null, cpu_ms: null, store_kb: null }
          : {
              ...(opts.memory !== undefined ? { memory_mb: opts.memory } : {}),
              ...(opts.cpu !== undefined ? { cpu_ms: opts.cpu } : {}),
              ...(opts.store !== undefined ? { store_kb: opts.store } : {}),
            };
        if (Object.keys(body).length === 0) return ctx.fail('INVALID_PARAMS', 'give --memory, --cpu, --store or --reset');
        const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/{name}/limits']>(pluginPath(name, 'limits'), body);
        ctx.out.success(data, () => {
          ctx.out.line(`${name}: ${data.limits.memory_mb} MB, ${data.limits.cpu_ms} ms CPU a call, store ${data.limits.store_kb} KB.`);
          ctx.out.line(RESTART_NOTE);
        });
      });

    plugin
      .command('settings')
      .summary("show or change a third-party plugin's settings (key=value; value null restores the default)")
      .argument('<name>')
      .argument('[pairs...]', 'key=value (numbers and true/false are read in the setting\'s type; null restores the default)')
      .action(async (name: string, pairs: string[]) => {
        if (pairs.length === 0) {
          const data = await ctx.api.get<ResponseData['GET /api/v1/plugins/{name}']>(pluginPath(name));
          const settings = data.plugin.sandbox?.settings ?? {};
          return ctx.out.success({ plugin: name, settings }, () =>
            ctx.out.kv(Object.entries(settings).map(([k, v]) => [k, JSON.stringify(v)]), { title: `Settings of ${name}` }),
          );
        }
        const body: Record<string, unknown> = {};
        for (const pair of pairs) {
          const at = pair.indexOf('=');
          if (at < 1) return ctx.fail('INVALID_PARAMS', `expected key=value, got "${pair}"`);
          body[pair.slice(0, at)] = settingValue(pair.slice(at + 1));
        }
        const data = await ctx.api.post<ResponseData['POST /api/v1/plugins/{name}/settings']>(pluginPath(name, 'settings'), body);
        ctx.out.success(data, data.message);
      });

    localCommand(
      plugin
        .command('new')
        .summary('write the folder of a new third-party plugin (a service, or a payback rail with --rail); needs no node')
        .argument('<name>', 'the plugin name: 1-64 of a-z, 0-9, - and _')
        .option('--rail', 'a payback rail')
        .option('--service', 'a service: a public page, an API route, a setting (the default)')
        .option('--dir <folder>', 'where to write it (default: ./<name>); it must be empty')
        .action((name: string, opts: { rail?: boolean; service?: boolean; dir?: string }) => {
          if (opts.rail && opts.service) return ctx.fail('INVALID_PARAMS', 'give --rail or --service, not both');
          const kind = opts.rail ? 'rail' : 'service';
          const dir = resolve(opts.dir ?? name);
          let files: string[];
          try {
            files = scaffold(name, kind, dir);
          } catch (err) {
            if (err instanceof ScaffoldError) return ctx.fail('INVALID_PARAMS', err.message);
            throw err;
          }
          ctx.out.success({ name, kind, dir, files }, () => {
            ctx.out.line(`Plugin ${name} (${kind}) written to ${dir}:`);
            for (const file of files) ctx.out.line(`  ${file}`);
            ctx.out.line();
            ctx.out.line('Next:');
            ctx.out.line(`  cd ${dir}`);
            ctx.out.line('  node-cli plugin build .            # index.ts -> index.js, checks plugin.json and the imports');
            ctx.out.line('  npm run plugin:sign -- sign <folder> --key <author key>   # in the node\'s checkout; or a node with NODE_PLUGINS_DEV_MODE=true');
            ctx.out.line(`  node-cli plugin install .  then  node-cli plugin enable ${name}  and  node-cli restart`);
          });
        }),
    );

    localCommand(
      plugin
        .command('build')
        .summary("bundle a plugin's index.ts into its entry, checking plugin.json and the sandbox's import rule; needs no node")
        .argument('[folder]', 'the plugin folder (plugin.json, index.ts)', '.')
        .action(async (folder: string) => {
          const dir = resolve(folder);
          let built;
          try {
            built = await buildPlugin(dir);
          } catch (err) {
            if (err instanceof BuildError) return ctx.fail('PLUGIN_BUILD_FAILED', err.message, { problems: err.problems });
            throw err;
          }
          ctx.out.success(built, () => {
            ctx.out.line(`Built ${built.name} ${built.version}: ${built.output} (${built.bytes} bytes, ${built.ms} ms).`);
            ctx.out.line(`Next: npm run plugin:sign -- sign ${dir} --key <author key> (or a node with NODE_PLUGINS_DEV_MODE=true),`);
            ctx.out.line(`then node-cli plugin install ${dir} (--replace for a new build of an installed plugin).`);
          });
        }),
    );

    plugin
      .command('dev')
      .summary('build the plugin, swap it into a development node (NODE_PLUGINS_DEV_MODE=true) without a restart, and again on every change')
      .argument('[folder]', 'the plugin folder (plugin.json, index.ts)', '.')
      .action(async (folder: string) => devLoop(ctx, resolve(folder)));

    plugin
      .command('uninstall')
      .summary('remove a plugin (it must be disabled first)')
      .argument('<name>')
      .action(async (name: string) => {
        const data = await ctx.api.delete<ResponseData['DELETE /api/v1/plugins/{name}']>(pluginPath(name));
        ctx.out.success(data, data.message);
      });
  },
});
