/** Graphs of credit lines between the simulated nodes, drawn from the seed. Edges are unordered pairs [a, b], a < b. */
import type { Rng } from './random.js';

export type TopologyKind = 'line' | 'ring' | 'triangle' | 'erdos-renyi' | 'scale-free';
export type Edge = readonly [number, number];

export function topology(kind: TopologyKind, n: number, rng: Rng, degree = 3): Edge[] {
  const edges = new Map<string, Edge>();
  const add = (a: number, b: number): void => {
    if (a === b) return;
    const e: Edge = a < b ? [a, b] : [b, a];
    edges.set(`${e[0]}-${e[1]}`, e);
  };
  if (kind === 'triangle' || kind === 'line' || kind === 'ring') {
    for (let i = 0; i + 1 < n; i++) add(i, i + 1);
    if (kind !== 'line' && n > 2) add(n - 1, 0);
  } else if (kind === 'erdos-renyi') {
    // Connected first (a random spanning tree), then each other pair with the probability that gives the mean degree.
    for (let i = 1; i < n; i++) add(i, rng.int(0, i - 1));
    const p = Math.max(0, (degree - 2) / Math.max(1, n - 1));
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (rng.chance(p)) add(a, b);
  } else {
    // Barabasi-Albert: each new node links to m existing ones, chosen in proportion to their degree.
    const m = Math.max(1, Math.floor(degree / 2));
    const ends: number[] = [];
    for (let i = 1; i < n; i++) {
      const links = new Set<number>();
      while (links.size < Math.min(m, i)) links.add(ends.length && rng.chance(0.9) ? rng.pick(ends) : rng.int(0, i - 1));
      for (const j of links) {
        add(i, j);
        ends.push(i, j);
      }
    }
  }
  return [...edges.values()];
}

/** Shortest hop counts from `from` (breadth first); -1 where unreachable. */
export function hops(edges: readonly Edge[], n: number, from: number): number[] {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of edges) {
    adj[a]!.push(b);
    adj[b]!.push(a);
  }
  const dist = new Array<number>(n).fill(-1);
  dist[from] = 0;
  const queue = [from];
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]!;
    for (const w of adj[v]!) if (dist[w] === -1) {
      dist[w] = dist[v]! + 1;
      queue.push(w);
    }
  }
  return dist;
}
