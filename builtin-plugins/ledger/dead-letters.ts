/**
 * Direct payments in the dead letter queue (Document 2, "Dead letter queue item": message type `transaction`).
 *
 * The ledger delivers its payments itself (ctx.peer.request, see sender.ts), so the kernel's outbox never parks them:
 * a payment failed for delivery (DELIVERY_MAX_RETRIES transport failures, or a permanent one) is parked here with
 * `ctx.peer.deadLetter`, in the transaction that fails it, under its txid. An operator retry (`dlq retry <id>`) puts
 * the payment back in the send queue for one attempt and waits for its outcome:
 *
 *   completed                                  → the item is resolved
 *   refused (rejected, cancelled, failed after a refusal such as a chain mismatch) → resolved, `refused: <code>`
 *   a transport failure again                  → the payment is failed again, the item stays pending (502)
 *
 * A payment that completes or is refused by any other way (a revival after the contact's ping showed it holds it)
 * resolves its item in the same transaction. Abandoning an item changes nothing on the payment: it stays failed.
 */
import { PeerDeliveryError, type DeadLetterOutcome, type PeerPayload, type QueuedPeerMessage } from '../../sdk/index.js';
import type { LedgerTx } from './api.js';
import type { LedgerCore } from './core.js';
import { MSG, type SendPayload } from './protocol.js';
import type { TxRow } from './store/rows.js';

/** The dead letter queue's message type of a payment. */
export const DLQ_LABEL = 'transaction';
/** Failure reasons (their code) of payments whose delivery was never confirmed: they may still be delivered. */
export const DELIVERY_FAILED = 'delivery_failed';
export const RECOVERY_EXHAUSTED = 'recovery_exhausted';

/** What an operator retry asks of the send queue (sender.ts), which parks its undelivered payments here. */
export interface RetryQueue {
  running(): boolean;
  retryFailed(row: TxRow, why: string): void;
  expedite(row: TxRow): void;
}

interface Waiter {
  resolve(outcome: DeadLetterOutcome): void;
  reject(error: PeerDeliveryError): void;
}

/** The code a failure reason starts with (`insufficient_credit: ...`, `delivery_failed after 5 attempt(s): ...`). */
const codeOf = (reason: string | null): string => /^[a-z0-9_]+/i.exec(reason ?? '')?.[0] ?? 'refused';

const payloadOf = (tx: LedgerTx): PeerPayload | undefined =>
  tx.content && tx.senderSignature ? ({ type: MSG.send, content: tx.content, sender_signature: tx.senderSignature } satisfies SendPayload) : undefined;

/** Whether a failed payment's delivery was never confirmed (so a retry or a revival may still deliver it). */
export const unconfirmed = (tx: LedgerTx): boolean =>
  tx.status === 'failed' && [DELIVERY_FAILED, RECOVERY_EXHAUSTED].includes(codeOf(tx.failureReason));

/** Where a sent payment stands for its dead letter: settled one way or the other, or null (still undelivered or on its way). */
function outcomeOf(tx: LedgerTx): DeadLetterOutcome | null {
  if (tx.status === 'completed') return { ok: true, payload: payloadOf(tx) };
  if (tx.status === 'pending' || tx.status === 'sending' || unconfirmed(tx)) return null;
  return { ok: false, refusal: codeOf(tx.failureReason), payload: payloadOf(tx) };
}

export class LedgerDeadLetters {
  /** Operator retries waiting for their payment's outcome, by txid. */
  readonly #waiting = new Map<string, Waiter[]>();
  #queue: RetryQueue | null = null;

  constructor(private readonly core: LedgerCore) {}

  get #ctx() {
    return this.core.ctx;
  }

  register(queue: RetryQueue): void {
    this.#queue = queue;
    this.#ctx.peer.outcomes(MSG.send, { label: DLQ_LABEL, retryable: true, retry: (message) => this.#retry(message) });
    this.core.onFinal((tx) => {
      if (!tx.outgoing) return;
      const outcome = outcomeOf(tx);
      if (!outcome) return;
      this.#ctx.peer.resolveDeadLetter(MSG.send, tx.txid, outcome);
      this.#settle(tx.txid, (w) => w.resolve(outcome));
    });
  }

  /** The queue failed a payment for delivery (call inside that transaction): park it and answer a waiting retry. */
  undelivered(row: TxRow, failure: PeerDeliveryError): void {
    this.#ctx.peer.deadLetter({
      messageId: row.txid,
      type: MSG.send,
      target: this.core.contacts.target(row.contactHash) ?? { pubkeyHash: row.contactHash, addresses: {} },
      payload: payloadOf(row) ?? { type: MSG.send },
      attempts: row.attempts,
      reason: `${failure.code}: ${failure.message}`,
    });
    this.giveUp(row.txid, failure);
  }

  /** A payment under retry was failed without an answer from the peer (call inside that transaction). */
  giveUp(txid: string, failure: PeerDeliveryError): void {
    this.#settle(txid, (w) => w.reject(failure));
  }

  /** The node stops: retries still waiting fail (their items go back to pending); the payments resume at the next start. */
  stop(): void {
    const failure = new PeerDeliveryError('stopped', 'the node stopped before the payment settled');
    for (const waiters of this.#waiting.values()) for (const w of waiters) w.reject(failure);
    this.#waiting.clear();
  }

  async #retry(message: QueuedPeerMessage): Promise<DeadLetterOutcome> {
    const queue = this.#queue!;
    if (!queue.running()) throw new PeerDeliveryError('not_sending', 'the node is not sending payments (stopping, or retired)');
    const txid = message.id;
    const now = this.#ctx.db.tx((): DeadLetterOutcome | null => {
      const row = this.core.store.transactions.get(txid);
      if (!row) return { ok: false, refusal: 'unknown_transaction' };
      const outcome = outcomeOf(row);
      if (!outcome && row.status === 'failed') queue.retryFailed(row, 'from the dead letter queue');
      // A parked routed leg's chain entry (owed, so never failed) waits for its slow retry: it goes now instead.
      else if (!outcome && row.status === 'pending') queue.expedite(row);
      return outcome; // null: on its way now (or already, after a revival)
    });
    if (now) return now;
    return new Promise<DeadLetterOutcome>((resolve, reject) => {
      const waiters = this.#waiting.get(txid) ?? [];
      waiters.push({ resolve, reject });
      this.#waiting.set(txid, waiters);
    });
  }

  /** Answers the retries waiting on a payment once the transaction that settled it has committed. */
  #settle(txid: string, answer: (w: Waiter) => void): void {
    if (!this.#waiting.has(txid)) return;
    this.#ctx.db.afterCommit(() => {
      const waiters = this.#waiting.get(txid) ?? [];
      this.#waiting.delete(txid);
      for (const w of waiters) answer(w);
    });
  }
}
