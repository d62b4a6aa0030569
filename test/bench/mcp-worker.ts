/**
 * Load generator of the mcp benchmark: one MCP session per key with the official SDK client, each running billed
 * chat.completion calls back to back. It runs in a worker thread so the clients and the node each get an event loop.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface McpLoadJob {
  url: string;
  tokens: string[];
  warmupMs: number;
  durationMs: number;
  /** Calls per session at most (each key may post 600 times a minute). */
  maxCallsPerSession: number;
}

export interface McpLoadResult {
  latencies: Float64Array;
  calls: number;
  errors: number;
  firstError: string | null;
  windowMs: number;
}

async function run(job: McpLoadJob): Promise<McpLoadResult> {
  const sessions = await Promise.all(
    job.tokens.map(async (token) => {
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(job.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    }),
  );
  const latencies: number[] = [];
  let calls = 0;
  let errors = 0;
  let firstError: string | null = null;
  const start = performance.now();
  const windowStart = start + job.warmupMs;
  const windowEnd = windowStart + job.durationMs;
  await Promise.all(
    sessions.map(async (client, i) => {
      for (let n = 0; n < job.maxCallsPerSession && performance.now() < windowEnd; n++) {
        const t0 = performance.now();
        try {
          const res = await client.callTool({ name: 'chat.completion', arguments: { messages: [{ role: 'user', content: `load ${i} ${n}` }], max_output_tokens: 16 } });
          if (res.isError) throw new Error(JSON.stringify(res.structuredContent));
          const t1 = performance.now();
          if (t0 >= windowStart && t1 <= windowEnd) {
            latencies.push(t1 - t0);
            calls++;
          }
        } catch (err) {
          errors++;
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          firstError ??= `${err instanceof Error ? err.message : String(err)}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
        }
      }
    }),
  );
  const windowMs = Math.min(performance.now(), windowEnd) - windowStart;
  await Promise.all(sessions.map((c) => c.close()));
  return { latencies: Float64Array.from(latencies), calls, errors, firstError, windowMs };
}

if (parentPort) {
  run(workerData as McpLoadJob).then(
    (r) => parentPort!.postMessage(r),
    (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
}
