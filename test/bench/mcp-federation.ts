/**
 * Benchmark of the inference federation (BENCH_ONLY=mcp-federation): what each resale hop adds to a call. Three nodes
 * on loopback, S (the fake upstream behind it), B reselling S, C reselling B; the same non-streamed chat.completion
 * through the official SDK client, sequentially, at S directly, at B (one hop) and at C (two hops). Every call is
 * billed at each node and every seller is paid its charge by a ledger payment. Prints the p50 of each and the added
 * latency per hop; asserts nothing.
 */
import { performance } from 'node:perf_hooks';
import { definePlugin, type BuiltinPlugin } from '../../sdk/index.js';
import { LEDGER_EVENTS, type LedgerService } from '../../builtin-plugins/ledger/api.js';
import { startFakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { chat, createKey, hashOf, mcpClient, ok, startMcpNode } from '../integration/mcp-support.js';
import { learned, link, resellWith, sellOwnModel } from '../integration/mcp-federation-support.js';

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Counts the payments a node sent that became final (the ledger's event), so a run can wait for a call's settlement. */
class Settled {
  count = 0;
  #waiters: (() => void)[] = [];
  readonly plugin: BuiltinPlugin = {
    manifest: { name: 'bench-settled', version: '0.0.0', enabled_by_default: true, requires: ['ledger'] },
    definition: definePlugin({
      setup: (ctx) => {
        const ledger = ctx.services.use<LedgerService>('ledger');
        ctx.events.subscribe<{ txid: string }>(LEDGER_EVENTS.final, (e) => {
          if (ledger.get(e.txid)?.type !== 'sent') return;
          this.count++;
          for (const w of this.#waiters.splice(0)) w();
        });
      },
    }),
  };

  async until(n: number): Promise<void> {
    while (this.count < n) await new Promise<void>((r) => this.#waiters.push(r));
  }
}

/**
 * Sequential calls at `t`. After each, the run waits until every payer of the chain has paid its seller (each payment
 * final at the payer): a call's latency is measured with the nodes quiet, not beside the last call's settlement.
 */
async function timeCalls(t: TestNode, contact: TestNode, samples: number, payers: readonly Settled[]): Promise<number[]> {
  const key = await createKey(t, { label: 'bench', contact: hashOf(contact), funding: 'credit' });
  const mcp = await mcpClient(t, key.token);
  const args = { messages: [{ role: 'user', content: 'a short question' }], model: 'm1', max_output_tokens: 16 };
  const times: number[] = [];
  const base = payers.map((p) => p.count);
  try {
    for (let i = 0; i < samples + 20; i++) {
      const started = performance.now();
      const { isError, r } = await chat(mcp, args);
      if (isError) throw new Error(`a benchmark call failed: ${JSON.stringify(r?.error ?? r)}`);
      if (i >= 20) times.push(performance.now() - started);
      await Promise.all(payers.map((p, j) => p.until(base[j]! + i + 1)));
    }
  } finally {
    await mcp.client.close();
  }
  return times;
}

export async function benchMcpFederation(samples: number): Promise<void> {
  const fake = await startFakeUpstream();
  const [atB, atC] = [new Settled(), new Settled()];
  const [S, B, C] = await Promise.all([startMcpNode(), startMcpNode({ extraBuiltins: [atB.plugin] }), startMcpNode({ extraBuiltins: [atC.plugin] })]);
  try {
    for (const t of [S, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    await sellOwnModel(S, fake);
    await resellWith(B, '0');
    await resellWith(C, '0');
    await link(B, S, '1000000');
    await learned(B, 1);
    await link(C, B, '1000000');
    await learned(C, 2);
    // Keys on the credit each node extends to a contact: no top-up needed before the calls.
    const direct = p50(await timeCalls(S, B, samples, []));
    const oneHop = p50(await timeCalls(B, C, samples, [atB]));
    const twoHops = p50(await timeCalls(C, B, samples, [atC, atB]));
    const f = (ms: number): string => `${ms.toFixed(2)} ms`;
    console.log(`  chat.completion p50 over ${samples} sequential calls (non-streamed, SDK client):`);
    console.log(`    at the seller S (no hop)     ${f(direct)}`);
    console.log(`    at B, reselling S (1 hop)    ${f(oneHop)}   added ${f(oneHop - direct)}  (x${(oneHop / direct).toFixed(2)})`);
    console.log(`    at C, reselling B (2 hops)   ${f(twoHops)}   added ${f(twoHops - direct)}  = ${f((twoHops - direct) / 2)} per hop (x${(twoHops / direct).toFixed(2)})`);
    console.log(`    target: at most 5 ms added per hop`);
  } finally {
    await Promise.all([S, B, C].map((t) => t.destroy()));
    await fake.close();
  }
}
