import { afterAll, describe, expect, it } from 'vitest';
import { PluginIsolate } from '../../../kernel/plugins/sandbox/isolate.js';
import { ABSENT_GLOBALS, REMOVED_GLOBALS } from '../../../sdk/sandbox-globals.js';

/** A plugin whose one route answers the names of its isolate's global object. */
const GLOBALS_PLUGIN = `import { definePlugin } from 'wallet-node/sdk/sandbox';
export default definePlugin({
  setup(ctx) {
    ctx.routes.public({ method: 'GET', path: 'globals', handler: () => Object.getOwnPropertyNames(globalThis) });
  },
});
`;

const started: PluginIsolate[] = [];
afterAll(() => started.forEach((i) => i.dispose()));

async function isolateGlobals(): Promise<Set<string>> {
  const { isolate } = await PluginIsolate.start({
    name: 'globals',
    version: '1.0.0',
    source: GLOBALS_PLUGIN,
    entryName: 'index.js',
    limits: { memoryMb: 16, cpuMs: 200, wallMs: 3000, maxOutput: 1_048_576 },
    host: async () => JSON.stringify({ ok: null }),
    now: () => 0,
  });
  started.push(isolate);
  const outcome = await isolate.call({ kind: 'route', id: 'public GET globals', request: {}, body: '', now: 0 });
  return new Set((outcome as { value: string[] }).value);
}

describe('the globals plugin build refuses', () => {
  it('are exactly what a plugin isolate lacks of the globals of the Node running it', async () => {
    const inIsolate = await isolateGlobals();
    // vitest's own globals are not Node's
    const missing = Object.getOwnPropertyNames(globalThis).filter((n) => !inIsolate.has(n) && !n.startsWith('__vitest'));
    expect(missing.filter((n) => !ABSENT_GLOBALS.has(n))).toEqual([]);
    expect([...ABSENT_GLOBALS.keys()].filter((n) => inIsolate.has(n))).toEqual([]);
    for (const name of REMOVED_GLOBALS) expect(ABSENT_GLOBALS.has(name), name).toBe(true);
  });
});
