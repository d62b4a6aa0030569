import { definePlugin } from '../../sdk/index.js';
/** A benchmark-only plugin: answers `bench.echo` and hands its peer API to the benchmark driver. */
export let benchPeer = null;
export const benchPlugin = {
    manifest: { name: 'bench', version: '0.0.0', enabled_by_default: true },
    definition: definePlugin({
        setup(ctx) {
            benchPeer = ctx.peer;
            ctx.peer.handle('bench.echo', (m) => ({ seq: m.payload.seq ?? null }));
        },
    }),
};
//# sourceMappingURL=peer-plugin.js.map