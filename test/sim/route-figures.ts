/**
 * Route discovery's cost over a run, for the scale profile: the route messages every node sent (requests, responses,
 * cancels, as the routing plugin counts them in GET /system/metrics) per routed payment an originator started.
 */
import type { SimNode } from './nodes.js';

export interface RouteFigures {
  discoveries: number;
  messages: { requests: number; responses: number; cancels: number };
  messagesPerDiscovery: number | null;
}

export async function routeFigures(nodes: readonly SimNode[]): Promise<RouteFigures> {
  const messages = { requests: 0, responses: 0, cancels: 0 };
  let discoveries = 0;
  for (const n of nodes) {
    const routing = (await n.ok('GET', '/api/v1/system/metrics')).plugins?.routing;
    if (!routing) continue;
    for (const k of Object.keys(messages) as (keyof typeof messages)[]) messages[k] += Number(routing.messages_sent?.[k] ?? 0);
    for (const count of Object.values(routing.payments ?? {})) discoveries += Number(count);
  }
  const total = messages.requests + messages.responses + messages.cancels;
  return { discoveries, messages, messagesPerDiscovery: discoveries ? Math.round((total / discoveries) * 10) / 10 : null };
}

/**
 * Why a payment got `no_route`, as a key to count: the path length the topology offered, the hop budget the search
 * had (from the error's message) and the capacity probe's reason.
 */
export function noRouteCause(hops: number, error: { message?: string; reason?: string } | undefined): string {
  const budget = /within (\d+) hop/.exec(error?.message ?? '')?.[1] ?? '?';
  return `${hops} hops, budget ${budget}: ${error?.reason ?? 'no reason'}`;
}
