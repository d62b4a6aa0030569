/**
 * Benchmark of third-party plugins in isolated-vm (BENCH_ONLY=sandbox). Prints figures; asserts nothing.
 *
 * 1. Added latency: the same small route (echo a query parameter in a small JSON object) served by a builtin plugin
 *    and by a sandboxed one, on one node in this process, called one at a time with signed requests, interleaved so
 *    that both see the same machine. The difference of the p50s is what the sandbox adds (the isolate call, JSON in
 *    and out, the queue, the limits' timers).
 * 2. Memory per idle isolate: the node's resident memory with N idle sandboxed plugins running minus without them,
 *    after a garbage collection when exposed (node --expose-gc), divided by N.
 *
 * Knobs: BENCH_SANDBOX_SAMPLES (3000 per route), BENCH_SANDBOX_IDLE (20 plugins).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { PluginIsolate } from '../../kernel/plugins/sandbox/isolate.js';
import { TRUSTED_KEYS_FILE } from '../../kernel/data-files.js';
import { generateAuthorKey, signPlugin } from '../../kernel/plugins/sandbox/signature.js';
import { definePlugin } from '../../sdk/index.js';
import { AS_OPERATORS_RUN, startTestNode, type TestNode } from '../support/node.js';

const builtinEcho: BuiltinPlugin = {
  manifest: { name: 'bench-builtin', version: '1.0.0', enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      ctx.routes.plugin({ method: 'GET', path: 'echo', access: { scope: 'admin' }, handler: (req) => ({ echo: req.query.v ?? null, n: 42 }) });
    },
  }),
};

const SANDBOXED_ECHO = `import { definePlugin } from 'sdk/sandbox.js';
export default definePlugin({
  setup(ctx) {
    ctx.routes.plugin({ method: 'GET', path: 'echo', scope: 'admin', handler: (req) => ({ echo: req.query.v ?? null, n: 42 }) });
  },
});
`;

const IDLE = `import { definePlugin } from 'sdk/sandbox.js';
export default definePlugin({
  setup(ctx) {
    ctx.routes.plugin({ method: 'GET', path: 'idle', scope: 'admin', handler: () => ({ idle: true }) });
  },
});
`;

function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? '');
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

async function must(t: TestNode, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await t.admin.request<{ success: boolean; data: unknown }>(method, path, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function installSigned(t: TestNode, key: { privatePem: string }, name: string, entry: string): Promise<void> {
  const manifest = JSON.stringify({ name, version: '1.0.0', description: 'benchmark plugin' });
  const signature = signPlugin({ name, manifest: Buffer.from(manifest), entryName: 'index.js', entry: Buffer.from(entry) }, key.privatePem);
  await must(t, 'POST', '/api/v1/plugins', { manifest, entry, signature: JSON.stringify(signature) });
  await must(t, 'POST', `/api/v1/plugins/${name}/enable`);
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (v: number): string => `${v.toFixed(3)} ms`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

function rss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

export async function benchSandbox(): Promise<void> {
  const samples = intEnv('BENCH_SANDBOX_SAMPLES', 3000);
  const idle = intEnv('BENCH_SANDBOX_IDLE', 20);
  const pluginsDir = mkdtempSync(join(tmpdir(), 'wallet-node-bench-plugins-'));
  const t = await startTestNode({ extraBuiltins: [builtinEcho], env: { ...AS_OPERATORS_RUN, NODE_PLUGINS_DIR: pluginsDir } });
  try {
    await must(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    const key = generateAuthorKey();
    writeFileSync(join(t.dataDir, TRUSTED_KEYS_FILE), `${key.publicHex} bench\n`);
    await installSigned(t, key, 'bench-sandboxed', SANDBOXED_ECHO);
    await must(t, 'POST', '/api/v1/system/restart');

    const paths = { builtin: '/api/v1/plugins/bench-builtin/echo', sandboxed: '/api/v1/plugins/bench-sandboxed/echo' };
    const times: Record<keyof typeof paths, number[]> = { builtin: [], sandboxed: [] };
    const once = async (kind: keyof typeof paths, i: number): Promise<void> => {
      const began = performance.now();
      const res = await t.admin.get<{ data: { echo: string } }>(paths[kind], { query: { v: String(i) } });
      const took = performance.now() - began;
      if (res.status !== 200 || res.body.data.echo !== String(i)) throw new Error(`${kind}: ${res.status} ${JSON.stringify(res.body)}`);
      times[kind].push(took);
    };
    for (let i = 0; i < 300; i++) {
      await once('builtin', i);
      await once('sandboxed', i);
    }
    times.builtin = [];
    times.sandboxed = [];
    for (let i = 0; i < samples; i++) {
      // Alternating order, so neither route always runs right after the other.
      if (i % 2 === 0) {
        await once('builtin', i);
        await once('sandboxed', i);
      } else {
        await once('sandboxed', i);
        await once('builtin', i);
      }
    }
    const b = [...times.builtin].sort((x, y) => x - y);
    const s = [...times.sandboxed].sort((x, y) => x - y);
    console.log(`  same route, one request at a time, ${samples} each (signed GET, loopback, client in this process):`);
    console.log(`    builtin    p50 ${ms(pct(b, 50))}  p90 ${ms(pct(b, 90))}  p99 ${ms(pct(b, 99))}`);
    console.log(`    sandboxed  p50 ${ms(pct(s, 50))}  p90 ${ms(pct(s, 90))}  p99 ${ms(pct(s, 99))}`);
    console.log(`    added by the sandbox: p50 ${ms(pct(s, 50) - pct(b, 50))}, p90 ${ms(pct(s, 90) - pct(b, 90))} (target: p50 at most 1 ms)`);

    const before = rss();
    for (let i = 0; i < idle; i++) await installSigned(t, key, `bench-idle-${i}`, IDLE);
    await must(t, 'POST', '/api/v1/system/restart');
    for (let i = 0; i < idle; i++) await must(t, 'GET', `/api/v1/plugins/bench-idle-${i}/idle`);
    const after = rss();
    const gc = typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'after gc' : 'no --expose-gc: no gc forced';
    console.log(`  memory per idle isolate: ${mb((after - before) / idle)} of the process's resident memory (${idle} idle plugins, each called once; ${gc})`);

    // The same code in bare isolates, as the host makes them: what V8 holds for each (heap pages in memory).
    const isolates: PluginIsolate[] = [];
    for (let i = 0; i < idle; i++) {
      const { isolate } = await PluginIsolate.start({
        name: `heap-${i}`,
        version: '1.0.0',
        source: IDLE,
        entryName: 'index.js',
        limits: { memoryMb: 32, cpuMs: 200, wallMs: 3000, maxOutput: 1_048_576 },
        host: async () => JSON.stringify({ ok: null }),
        now: () => Date.now(),
      });
      isolates.push(isolate);
    }
    const heaps = await Promise.all(isolates.map((i) => i.heap()));
    const avg = (f: (h: { used: number; physical: number }) => number): number => heaps.reduce((sum, h) => sum + f(h), 0) / heaps.length;
    console.log(`  V8 heap of an idle isolate: ${mb(avg((h) => h.physical))} held, ${mb(avg((h) => h.used))} in use (mean of ${idle})`);
    for (const i of isolates) i.dispose();
  } finally {
    await t.destroy();
  }
}
