/** Fixtures for tests of the peer layer: a message handler that answers who it is, and listeners on loopback. */
import type { AddressInfo } from 'node:net';
import { definePlugin, type BuiltinPlugin, type PluginContext } from '../../sdk/index.js';
import type { DualListener } from '../../kernel/net/listener.js';

/**
 * A plugin answering `test.echo` messages with its node's key hash and the `n` it was sent. `sender()` is the
 * context of the first node that loaded it: the one a test sends from.
 */
export function echoPlugin(name: string): { plugin: BuiltinPlugin; sender: () => PluginContext } {
  let first: PluginContext | null = null;
  const plugin: BuiltinPlugin = {
    manifest: { name, version: '0.0.0', enabled_by_default: true },
    definition: definePlugin({
      setup(ctx) {
        first ??= ctx;
        ctx.peer.handle('test.echo', (m) => ({ at: ctx.identity.pubkeyHash, n: m.payload.n }));
      },
    }),
  };
  return {
    plugin,
    sender: () => {
      if (!first) throw new Error(`${name}: no node loaded the plugin yet`);
      return first;
    },
  };
}

/** Listens on a free loopback port; `close` drops every connection and resolves once the port is closed. */
export async function listenOnLoopback(listener: DualListener): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        listener.closeAll();
        listener.server.close(() => resolve());
      }),
  };
}
