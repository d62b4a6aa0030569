import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { definePlugin, type PeerApi } from '../../sdk/index.js';

/** A benchmark-only plugin: answers `bench.echo` and hands its peer API to the benchmark driver. */
export let benchPeer: PeerApi | null = null;

export const benchPlugin: BuiltinPlugin = {
  manifest: { name: 'bench', version: '0.0.0', enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      benchPeer = ctx.peer;
      ctx.peer.handle('bench.echo', (m) => ({ seq: m.payload.seq ?? null }));
    },
  }),
};
