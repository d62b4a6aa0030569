import type {
  DeadLetter,
  DeadLetterItem,
  DeadLetterOutcome,
  DeadLetterStatus,
  DlqMechanism,
  Logger,
  PeerDeadLetterApi,
  PeerPayload,
  PeerReply,
  QueuedPeerMessage,
} from '../../sdk/index.js';
import { PeerDeliveryError } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import { ApiError } from '../errors.js';
import { loadTarget, recipientAddress, storeTarget, type Outbox } from './outbox.js';

interface Row {
  id: number;
  message_id: string;
  type: string;
  label: string;
  target: string;
  payload: string;
  status: DeadLetterStatus;
  retry_count: number;
  recipient_address: string | null;
  failure_reason: string | null;
  added_at: string;
  updated_at: string;
}

/** A resolved item's reason: none once delivered, `refused: <code>` when the peer (or the owner for it) refused it. */
const reasonOf = (outcome: DeadLetterOutcome): string | null => (outcome.ok ? null : `refused: ${outcome.refusal}`);

/**
 * Messages whose delivery failed every attempt: the outbox's, and those a plugin delivers itself and parks with
 * `ctx.peer.deadLetter` (its type's `retry` hook then runs an operator retry, outcome included). An operator retries
 * them (when their owner says a retry is safe, refreshing the payload first) or abandons them; finished items are
 * deleted after the retention.
 */
export class DeadLetterQueue implements DlqMechanism, PeerDeadLetterApi {
  #outbox: Outbox | null = null;
  readonly #changed = new Set<() => void>();
  readonly #insert;
  readonly #upsert;
  readonly #resolve;
  readonly #get;
  readonly #update;
  readonly #anyOpen;
  /**
   * Whether an item may be pending or retrying: false only when counted so after the last change ended. Every payment
   * that completes asks to resolve its item, and on a node whose queue is empty that asks nothing of the database.
   */
  #mayBeOpen = true;

  constructor(
    private readonly db: Db,
    private readonly log?: Logger,
  ) {
    this.#insert = db.prepare(
      `INSERT OR IGNORE INTO peer_dlq (message_id, type, label, target, payload, status, retry_count, recipient_address, failure_reason, added_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
    );
    this.#upsert = db.prepare(
      `INSERT INTO peer_dlq (message_id, type, label, target, payload, status, retry_count, recipient_address, failure_reason, added_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)
       ON CONFLICT (message_id) DO UPDATE SET target = excluded.target, payload = excluded.payload,
         retry_count = MAX(retry_count, excluded.retry_count), recipient_address = excluded.recipient_address,
         failure_reason = excluded.failure_reason, updated_at = excluded.updated_at
       WHERE status IN ('pending', 'retrying')`,
    );
    this.#resolve = db.prepare(
      `UPDATE peer_dlq SET status = 'resolved', failure_reason = ?, updated_at = ? WHERE type = ? AND message_id = ? AND status IN ('pending', 'retrying')`,
    );
    this.#get = db.prepare('SELECT * FROM peer_dlq WHERE id = ?');
    this.#update = db.prepare('UPDATE peer_dlq SET status = ?, retry_count = ?, failure_reason = ?, payload = ?, updated_at = ? WHERE id = ?');
    this.#anyOpen = db.prepare(`SELECT 1 FROM peer_dlq WHERE status IN ('pending', 'retrying') LIMIT 1`);
  }

  /** Before a write that may leave an item open. */
  #opening(): void {
    this.#mayBeOpen = true;
  }

  /**
   * After a write that closed items: counts again once its transaction has ended (one of better-sqlite3 ends within
   * the call that runs it, so by the next microtask it has committed or rolled back).
   */
  #closed(): void {
    queueMicrotask(() => {
      if (!this.db.inTransaction) this.#mayBeOpen = this.#anyOpen.get() !== undefined;
    });
  }

  /** Told after anything in the queue changed (an item parked, retried, resolved, abandoned). */
  onChange(listener: () => void): () => void {
    this.#changed.add(listener);
    return () => this.#changed.delete(listener);
  }

  #notify(): void {
    for (const listener of this.#changed) listener();
  }

  attach(outbox: Outbox): void {
    this.#outbox = outbox;
  }

  park(message: QueuedPeerMessage, type: string, reason: string, address: string | null): void {
    const now = new Date().toISOString();
    this.#opening();
    this.#insert.run(message.id, type, this.#label(type), storeTarget(message.target), JSON.stringify(message.payload), message.attempts, address, reason, now, now);
    this.#notify();
  }

  /** Parks a message its plugin delivers itself (PeerDeadLetterApi.deadLetter), in the caller's transaction. */
  deadLetter(l: DeadLetter): void {
    const now = new Date().toISOString();
    this.#opening();
    this.#upsert.run(l.messageId, l.type, this.#label(l.type), storeTarget(l.target), JSON.stringify(l.payload), l.attempts, recipientAddress(l.target), l.reason, now, now);
    this.#notify();
  }

  /** Resolves a plugin's pending item that reached its peer another way (PeerDeadLetterApi.resolveDeadLetter). */
  resolveDeadLetter(type: string, messageId: string, outcome: DeadLetterOutcome): boolean {
    if (!this.#mayBeOpen) return false;
    const resolved = this.#resolve.run(reasonOf(outcome), new Date().toISOString(), type, messageId).changes > 0;
    this.#closed();
    if (resolved) this.#notify();
    return resolved;
  }

  list(statuses: readonly DeadLetterStatus[]): DeadLetterItem[] {
    const rows = this.db
      .prepare(`SELECT * FROM peer_dlq WHERE status IN (${statuses.map(() => '?').join(',')}) ORDER BY id DESC`)
      .all(...statuses) as Row[];
    return rows.map((r) => this.#item(r));
  }

  get(id: number): DeadLetterItem | null {
    const row = this.#get.get(id) as Row | undefined;
    return row ? this.#item(row) : null;
  }

  pendingCount(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM peer_dlq WHERE status IN ('pending', 'retrying')`).get() as { n: number }).n;
  }

  async retry(id: number): Promise<DeadLetterItem> {
    const row = this.#require(id);
    if (row.status !== 'pending' && row.status !== 'retrying') {
      throw new ApiError('dlq_invalid_status', 400, `Dead letter ${id} is ${row.status}; only pending or retrying items can be retried`);
    }
    const hooks = this.#outbox!.hooksFor(row.type);
    if (!hooks?.retryable) {
      throw new ApiError('dlq_not_retryable', 400, `Dead letter ${id} (${row.label}) is time-sensitive and cannot be retried; abandon it`);
    }
    const payload = hooks.refresh ? hooks.refresh(JSON.parse(row.payload) as PeerPayload) : (JSON.parse(row.payload) as PeerPayload);
    const attempts = row.retry_count + 1;
    this.#opening();
    this.#update.run('retrying', attempts, row.failure_reason, JSON.stringify(payload), new Date().toISOString(), id);
    const target = loadTarget(row.target);
    const message: QueuedPeerMessage = { id: row.message_id, target, payload, attempts };
    // An owned item's retry runs its owner's way, outcome included; an outbox item is resent as it was queued.
    let reply: PeerReply | null = null;
    let outcome: DeadLetterOutcome;
    try {
      if (hooks.retry) outcome = await hooks.retry(message);
      else {
        reply = await this.#outbox!.sendNow(row.message_id, target, payload);
        outcome = reply.ok ? { ok: true } : { ok: false, refusal: reply.error?.code ?? 'refused' };
      }
    } catch (err) {
      const reason = err instanceof PeerDeliveryError ? `${err.code}: ${err.message}` : String(err);
      this.#opening();
      this.#update.run('pending', attempts, reason, JSON.stringify(payload), new Date().toISOString(), id);
      throw new ApiError('dlq_retry_failed', 502, `Delivery failed again: ${reason}`, { item: this.get(id) });
    }
    this.#update.run('resolved', attempts, reasonOf(outcome), JSON.stringify(outcome.payload ?? payload), new Date().toISOString(), id);
    this.#closed();
    this.#notify();
    if (!reply) return this.get(id)!;
    this.#outbox!.markDelivered(row.message_id, attempts, reply.ok ? null : (reply.error?.code ?? 'refused'));
    try {
      await (reply.ok ? hooks.delivered?.(message, reply) : hooks.refused?.(message, reply));
    } catch (err) {
      // The owner's hook failing must not turn a delivered retry into an error (the outbox does the same).
      this.log?.error(`dead letter hook for ${row.type} failed`, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
    return this.get(id)!;
  }

  abandon(id: number): DeadLetterItem {
    const row = this.#require(id);
    if (row.status !== 'pending' && row.status !== 'retrying') {
      throw new ApiError('dlq_invalid_status', 400, `Dead letter ${id} is already ${row.status}`);
    }
    this.#update.run('abandoned', row.retry_count, row.failure_reason, row.payload, new Date().toISOString(), id);
    this.#closed();
    this.#notify();
    return this.get(id)!;
  }

  /** Deletes finished items older than the retention, and delivered outbox rows older than theirs. */
  cleanup(nowMs: number, dlqDays: number, deliveryDays: number): void {
    this.db.prepare(`DELETE FROM peer_dlq WHERE status IN ('resolved', 'abandoned') AND updated_at < ?`).run(new Date(nowMs - dlqDays * 86_400_000).toISOString());
    this.db.prepare(`DELETE FROM peer_outbox WHERE status IN ('delivered', 'refused', 'dead') AND updated_at < ?`).run(nowMs - deliveryDays * 86_400_000);
  }

  #label(type: string): string {
    return this.#outbox?.hooksFor(type)?.label ?? type;
  }

  #require(id: number): Row {
    const row = this.#get.get(id) as Row | undefined;
    if (!row) throw new ApiError('dlq_item_not_found', 404, `No dead letter with id ${id}`);
    return row;
  }

  #item(r: Row): DeadLetterItem {
    return {
      id: r.id,
      message_id: r.message_id,
      message_type: r.label,
      status: r.status,
      retry_count: r.retry_count,
      recipient_address: r.recipient_address,
      failure_reason: r.failure_reason,
      added_at: r.added_at,
      updated_at: r.updated_at,
      retryable: this.#outbox?.hooksFor(r.type)?.retryable ?? false,
    };
  }
}
