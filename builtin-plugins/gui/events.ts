/**
 * `GET /gui/api/events`: the node's events a logged-in page shows live, as server-sent events. Each event names what
 * changed (`transaction`, `contact`, `request`, `p2p`, `inference`) with the bus payload, and carries the count of dead letters waiting (`dlq`), so
 * the badge follows without a request of its own. A comment line every 25 s keeps proxies from closing the stream. The
 * stream ends with its session: at logout, and when the session idles out (an open stream is no activity).
 */
import { Readable } from 'node:stream';
import { KERNEL_EVENTS, type PluginContext } from '../../sdk/index.js';
import { CONTACT_EVENTS } from '../contacts/api.js';
import { LEDGER_EVENTS } from '../ledger/api.js';
import { MCP_EVENTS } from '../mcp-passthrough/api.js';
import { PAYMENT_REQUEST_EVENTS } from '../payment-requests/api.js';
import { ROUTING_EVENTS } from '../routing/api.js';

const KEEPALIVE_MS = 25_000;

/** Bus event → the SSE event name the page listens to. */
const FORWARDED: Readonly<Record<string, string>> = {
  [LEDGER_EVENTS.final]: 'transaction',
  [CONTACT_EVENTS.accepted]: 'contact',
  [CONTACT_EVENTS.currencyAccepted]: 'contact',
  [CONTACT_EVENTS.declined]: 'contact',
  [CONTACT_EVENTS.deleted]: 'contact',
  [CONTACT_EVENTS.blocked]: 'contact',
  [CONTACT_EVENTS.unblocked]: 'contact',
  [CONTACT_EVENTS.requestReceived]: 'contact',
  [PAYMENT_REQUEST_EVENTS.changed]: 'request',
  [ROUTING_EVENTS.awaitingApproval]: 'p2p',
  [KERNEL_EVENTS.dlqChanged]: 'dlq',
  [MCP_EVENTS.budgetSoftLimit]: 'inference',
};

/** The session a stream belongs to: whether it is still live, and a way to be told when it ends. */
export interface StreamSession {
  alive(): boolean;
  follow(end: () => void): () => void;
}

export function eventStream(ctx: PluginContext, session: StreamSession): Readable {
  const offs: (() => void)[] = [];
  const stream = new Readable({
    read() {},
    destroy(err, callback) {
      for (const off of offs.splice(0)) off();
      callback(err);
    },
  });
  // Nothing more goes out once the session has ended (its idle time may have run out since the last event).
  const push = (chunk: string): void => {
    if (session.alive()) stream.push(chunk);
  };
  const send = (name: string, data: unknown): void => push(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  // Counted once, then followed through the kernel's dlq.changed events (their payload carries the count): a busy
  // node's events do not each cost a count per open page.
  let dlq = ctx.kernel.dlq.pendingCount();
  send('hello', { dlq });
  for (const [busEvent, name] of Object.entries(FORWARDED)) {
    offs.push(
      ctx.events.subscribe(busEvent, (payload) => {
        if (busEvent === KERNEL_EVENTS.dlqChanged) dlq = (payload as { pending: number }).pending;
        send(name, { event: busEvent, payload, dlq });
      }),
    );
  }
  const keepalive = setInterval(() => push(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  offs.push(() => clearInterval(keepalive));
  offs.push(session.follow(() => stream.push(null)));
  return stream;
}
