/**
 * One node of the payment benchmark, in its own thread (its own event loop), like a node in its own process. It tells
 * the driver of every payment that becomes final here (the ledger's event, as the node publishes it), so the driver
 * learns of a completion without asking the node over and over while it works. Told `quiet`, it tells only what the
 * driver asks for (`{ completedAt: n }`: once n payments in all completed here), so that a throughput run measures
 * the node and not a message to the driver per payment.
 */
import type { BuiltinPlugin } from '../../sdk/index.js';
import { definePlugin } from '../../sdk/index.js';
import { LEDGER_EVENTS, type LedgerService } from '../../builtin-plugins/ledger/api.js';
import { AS_OPERATORS_RUN, startTestNode } from '../support/node.js';
import { epochMs } from './clock.js';
import { onMessage, post } from './driver-channel.js';

/** What the worker posts when a payment becomes final here. */
export interface FinalNotice {
  /** When the event fired, in epoch milliseconds with a fraction (epochMs): comparable across threads and processes. */
  final: { txid: string; memo: string; status: string; at: number };
}

/** What the worker posts once the count of payments completed here reaches what the driver asked for. */
export interface CompletedNotice {
  completed: number;
}


/** Quiet: no notice per final payment; the count of completed ones, told once it reaches what the driver asked. */
let quiet = false;
let completed = 0;
let completedAt = Infinity;
const reached = (): void => {
  if (completed < completedAt) return;
  completedAt = Infinity;
  post({ completed } satisfies CompletedNotice);
};

const finals: BuiltinPlugin = {
  manifest: { name: 'bench-finals', version: '0.0.0', enabled_by_default: true, requires: ['ledger'] },
  definition: definePlugin({
    setup(ctx) {
      const ledger = ctx.services.use<LedgerService>('ledger');
      ctx.events.subscribe<{ txid: string; status: string }>(LEDGER_EVENTS.final, (e) => {
        if (e.status === 'completed') {
          completed++;
          reached();
        }
        if (quiet) return;
        const at = epochMs();
        // Told after the node's own work of this turn (its answer to the peer, most often): the notice is the bench's
        // cost, and an operator's node pays none on the path of its payments.
        setImmediate(() => post({ final: { txid: e.txid, memo: ledger.get(e.txid)?.memo ?? '', status: e.status, at } } satisfies FinalNotice));
      });
    },
  }),
};

const node = await startTestNode({ extraBuiltins: [finals], env: AS_OPERATORS_RUN });
const creds = node.node.cliCredentials();
post({ baseUrl: node.node.baseUrl, keyId: creds.key_id, secret: creds.secret, pubkeyHash: node.node.identity.pubkeyHash });
onMessage((msg) => {
  if (msg === 'stop') void node.destroy().then(() => process.exit(0));
  else if (msg === 'quiet') quiet = true;
  else if (typeof msg === 'object' && msg !== null && 'completedAt' in msg) {
    completedAt = Number(msg.completedAt);
    reached();
  }
});
