/**
 * Memory per node, for the scale profile's printout: the process's growth from before the first node started,
 * divided by the nodes. A full collection first when the process allows one (`node --expose-gc`, as `npm run sim`
 * starts it), so the live heap is measured rather than the garbage the last step left.
 */
export interface MemoryFigures {
  rssMb: number;
  heapUsedMb: number;
  /** (RSS now - RSS before the nodes) / nodes. */
  rssMbPerNode: number;
  /** (heap used now - heap used before the nodes) / nodes. */
  heapMbPerNode: number;
}

export interface MemorySample {
  rss: number;
  heapUsed: number;
}

const MB = 2 ** 20;
const round = (x: number): number => Math.round(x * 10) / 10;

export function sampleMemory(): MemorySample {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

export function memoryFigures(before: MemorySample, nodes: number): MemoryFigures {
  const now = sampleMemory();
  return {
    rssMb: Math.round(now.rss / MB),
    heapUsedMb: Math.round(now.heapUsed / MB),
    rssMbPerNode: round((now.rss - before.rss) / MB / nodes),
    heapMbPerNode: round((now.heapUsed - before.heapUsed) / MB / nodes),
  };
}
