/**
 * node-cli commands of the plugins-admin plugin:
 *
 *   plugin [list]
 *   plugin show <name>
 *   plugin enable|disable <name>
 *   plugin public-routes <name> on|off
 *   plugin uninstall <name>
 */
import { defineCliCommands } from '../../sdk/cli.js';
import { allPages } from '../system/paging.js';
const RESTART_NOTE = 'Restart the node to apply: node-cli restart';
const pluginPath = (name, action = '') => `/api/v1/plugins/${encodeURIComponent(name)}${action ? `/${action}` : ''}`;
const SWITCH = { on: true, off: false, true: true, false: false, enable: true, disable: false, yes: true, no: false };
function list(ctx, data) {
    const o = ctx.out;
    o.table(data.plugins, [
        { key: 'name', header: 'NAME' },
        { key: 'version', header: 'VERSION' },
        { key: 'enabled', header: 'ENABLED' },
        { key: 'status', header: 'STATUS' },
        { key: 'license', header: 'LICENSE' },
        {
            key: 'public_routes',
            header: 'PUBLIC ROUTES',
            format: (v, row) => (Array.isArray(v) && v.length ? `${row.public_routes_served ? 'served' : row.public_routes_enabled ? 'on' : 'off'} (${v.length})` : '-'),
        },
    ], { title: 'Installed plugins', empty: 'No plugins installed.' });
    const failed = data.plugins.filter((p) => p.error);
    for (const p of failed)
        o.line(`  ${p.name}: ${p.error}`);
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
            .description('Manages the plugins of the node. Enable and disable only record the choice: it takes effect when the node ' +
            'restarts (node-cli restart). Essential plugins cannot be disabled. With no subcommand: list.');
        plugin
            .command('list', { isDefault: true })
            .summary('list installed plugins')
            .action(async () => {
            const { rows, data: last } = await allPages(ctx.api, '/api/v1/plugins', 'plugins');
            const data = { plugins: rows, count: rows.length, public_routes_ceiling: last.public_routes_ceiling };
            ctx.out.success(data, () => list(ctx, data));
        });
        plugin
            .command('show')
            .summary('show one plugin')
            .argument('<name>')
            .action(async (name) => {
            const data = await ctx.api.get(pluginPath(name));
            const p = data.plugin;
            ctx.out.success(data, () => ctx.out.kv([
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
                ['Public routes', (p.public_routes ?? []).map((a) => `/p/${p.name}/${a}`)],
                ['Routes switch', p.public_routes?.length ? (p.public_routes_enabled ? 'on' : 'off') : null],
                ['Restart needed', p.restart_required],
                ['Error', p.error],
            ], { title: `Plugin ${p.name}` }));
        });
        for (const verb of ['enable', 'disable']) {
            plugin
                .command(verb)
                .summary(`${verb} a plugin (takes effect at the next restart)`)
                .argument('<name>')
                .action(async (name) => {
                const data = await ctx.api.post(pluginPath(name, verb));
                ctx.out.success(data, () => {
                    ctx.out.line(data.message.replace(/\s*POST \/api\/v1\/system\/restart to apply\.?/, ''));
                    if (data.public_routes_message)
                        ctx.out.line(data.public_routes_message);
                    if (data.restart_required)
                        ctx.out.line(RESTART_NOTE);
                });
            });
        }
        plugin
            .command('public-routes')
            .summary('switch the public routes (/p/<name>/...) of a plugin on or off')
            .argument('<name>')
            .argument('<state>', 'on or off')
            .action(async (name, state) => {
            const enabled = SWITCH[state.toLowerCase()];
            if (enabled === undefined)
                return ctx.fail('INVALID_PARAMS', `expected on or off, got "${state}"`);
            const data = await ctx.api.post(pluginPath(name, 'public-routes'), { enabled });
            ctx.out.success(data, data.message);
        });
        plugin
            .command('uninstall')
            .summary('remove a plugin (it must be disabled first)')
            .argument('<name>')
            .action(async (name) => {
            const data = await ctx.api.delete(pluginPath(name));
            ctx.out.success(data, data.message ?? `Plugin ${name} uninstalled.`);
        });
    },
});
//# sourceMappingURL=cli.js.map