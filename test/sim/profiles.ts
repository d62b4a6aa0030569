/** Named option sets: `ci` runs inside the test suite (test/sim/sim.test.ts), `scale` by hand. */
import { LIAR_KINDS } from './liars.js';
import { NO_FAULTS, type SimOptions } from './run.js';

export const PROFILES: Record<string, Partial<SimOptions>> = {
  ci: { nodes: 12, payments: 300, topology: 'erdos-renyi', degree: 3, routed: 0.3, rate: 20, faults: { drop: 0.01, duplicate: 0.01, delay: 0.05, delayMs: 2000 } },
  // The load trial of issue 27: steady two-way direct payments in a triangle, no fault, credit that never runs out.
  triangle: { nodes: 3, payments: 20_000, topology: 'triangle', routed: 0, rate: 200, credit: [10_000_000, 10_000_000], faults: NO_FAULTS },
  // 150 payments: at 1,000 nodes a routed payment's discovery costs thousands of exchanges (docs/simulator.md).
  scale: { nodes: 1000, payments: 150, topology: 'scale-free', degree: 4, routed: 0.5, rate: 50, faults: NO_FAULTS },
};

// The CI profile's faults beyond the network's (faults/), its liar (of a kind each seed picks) and its other workloads.
const ci = PROFILES.ci!;
ci.faults = { ...ci.faults!, partitions: 1, partitionMs: 5000, crash: 0.005, downMs: 5000, skewMs: 20_000 };
ci.liars = { count: 1, kinds: [...LIAR_KINDS], delayMs: 120_000 };
ci.workloads = { requests: 0.1, refunds: 0.05, terms: 0.03, syncs: 0.02, probes: 0.03, splits: 0.04, clearings: 0.03 };
