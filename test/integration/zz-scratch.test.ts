import { it } from 'vitest';
import { startTestNode } from '../support/node.js';
import { line, ok, routedSend, legsOf } from './routing-support.js';
it('scratch', async () => {
  const nodes = await Promise.all(Array.from({ length: 6 }, () => startTestNode()));
  for (const t of nodes) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, rate_limit_enabled: false });
  await line(nodes);
  const F = nodes[5]!;
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    const s = await routedSend(nodes[0]!, F, '1');
    const t1 = performance.now();
    for (;;) { const l = await legsOf(F, s.p2p_hash); if (l[0]?.status === 'completed') break; }
    const t2 = performance.now();
    if (i % 5 === 0) console.log(`rest ${(t1 - t0).toFixed(1)} ms, completed at F ${(t2 - t0).toFixed(1)} ms`);
  }
  // direct
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    const s = await ok(nodes[0]!, 'POST', '/api/v1/wallet/send', { address: 'n1', amount: '1', currency: 'VWL' });
    for (;;) { const r = await ok(nodes[0]!, 'GET', `/api/v1/wallet/transactions/${s.txid}`); if (r.transaction.status === 'completed') break; }
    if (i % 5 === 0) console.log(`direct ${(performance.now() - t0).toFixed(1)} ms`);
  }
  await Promise.all(nodes.map((t) => t.destroy()));
}, 120000);
