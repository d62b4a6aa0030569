import { randomBytes } from 'node:crypto';
import type { Logger, OutboxHooks, PeerPayload, PeerReply, PeerTarget, QueuedPeerMessage } from '../../sdk/index.js';
import { PeerDeliveryError } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import { storageRetryMs } from '../db/storage-health.js';
import type { TxRunner } from '../db/tx.js';
import type { PeerClient } from './client.js';
import { outsideRequest } from '../log.js';

/** Attempts before a message is parked in the dead letter queue (DELIVERY_MAX_RETRIES). */
export const DELIVERY_MAX_RETRIES = 5;
const MAX_IN_FLIGHT = 64;

/**
 * First retry delay. Tests shorten it with NODE_PEER_RETRY_BASE_MS (an integer of 1..2000 ms, read at each
 * retry); it can only make retries faster, never slower.
 */
function retryBaseMs(): number {
  const raw = process.env.NODE_PEER_RETRY_BASE_MS;
  const n = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return n >= 1 && n <= 2000 ? n : 2000;
}

/** 2, 4, 8, 16, 32 s with ±20 % jitter, so many failing messages do not retry in lockstep. */
export function backoffMs(failedAttempts: number, random: () => number = Math.random): number {
  const base = retryBaseMs() * 2 ** (failedAttempts - 1);
  return Math.round(base * (1 + 0.2 * (random() * 2 - 1)));
}

/** How long a message is sent again, uncounted, to a peer whose disk refuses it (`waitsForPeerDisk`). */
const PEER_DISK_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a failed delivery is a peer saying its disk refused the write (507 `insufficient_storage`). That peer is up,
 * rolled the message's work back and resumes on its own once it can write (docs/decisions.md, "A full disk"), so the
 * attempt does not count against the retries: the message goes again at the first retry's pace, and reaches the peer
 * within seconds of its recovery, for up to PEER_DISK_WAIT_MS after it was queued. After that, attempts count again.
 */
export function waitsForPeerDisk(err: unknown, queuedAt: number, now: number): boolean {
  return err instanceof PeerDeliveryError && err.code === 'insufficient_storage' && now - queuedAt < PEER_DISK_WAIT_MS;
}

interface Row {
  id: string;
  type: string;
  target: string;
  payload: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
}

export interface StoredTarget {
  pubkeyHash: string | null;
  sealingKey: string | null;
  addresses: PeerTarget['addresses'];
}

export const storeTarget = (t: PeerTarget): string =>
  JSON.stringify({ pubkeyHash: t.pubkeyHash ?? null, sealingKey: t.sealingKey ? t.sealingKey.toString('base64url') : null, addresses: t.addresses } satisfies StoredTarget);

export const loadTarget = (text: string): PeerTarget => {
  const t = JSON.parse(text) as StoredTarget;
  return { pubkeyHash: t.pubkeyHash, sealingKey: t.sealingKey ? Buffer.from(t.sealingKey, 'base64url') : null, addresses: t.addresses };
};

/** The address a dead letter names as its recipient, in the house preference: tor > https > http. */
export const recipientAddress = (t: PeerTarget): string | null => t.addresses.tor ?? t.addresses.https ?? t.addresses.http ?? null;

const recipientKey = (t: PeerTarget): string => t.pubkeyHash ?? JSON.stringify(t.addresses);

/**
 * The transactional outbox. A message is inserted in the same transaction as the change it announces and
 * sent right after commit; failures retry with backoff and, after the last attempt, go to the dead letter
 * queue. Messages to one recipient go one at a time, in order; different recipients in parallel. The only
 * timer is the one for the next due retry.
 */
export class Outbox {
  #hooks = new Map<string, OutboxHooks>();
  #inFlight = new Set<string>();
  /** Attempts under way, so a stopping node can wait for them before it closes the database. */
  #attempts = new Set<Promise<void>>();
  #busyRecipients = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #kickQueued = false;
  #running = false;
  /** Set while the outbox's own records cannot be written: nothing is attempted until then (or the disk recovers). */
  #pausedUntil = 0;
  #pauses = 0;
  readonly #insert;
  readonly #due;
  readonly #nextDue;
  readonly #setStatus;
  readonly #reschedule;

  constructor(
    db: Db,
    private readonly tx: TxRunner,
    private readonly client: PeerClient,
    private readonly deadLetter: (row: QueuedPeerMessage, type: string, reason: string, address: string | null) => void,
    private readonly log: Logger,
  ) {
    this.#insert = db.prepare(
      `INSERT OR IGNORE INTO peer_outbox (id, type, target, payload, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    );
    this.#due = db.prepare(`SELECT id, type, target, payload, attempts, next_attempt_at, created_at FROM peer_outbox
       WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY created_at, rowid LIMIT 512`);
    this.#nextDue = db.prepare(`SELECT MIN(next_attempt_at) AS at FROM peer_outbox WHERE status = 'pending'`);
    this.#setStatus = db.prepare('UPDATE peer_outbox SET status = ?, last_error = ?, attempts = ?, updated_at = ? WHERE id = ?');
    this.#reschedule = db.prepare('UPDATE peer_outbox SET attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?');
    tx.storage?.onRecovered(() => {
      this.#pausedUntil = 0;
      this.kick();
    });
  }

  hooks(type: string, hooks: OutboxHooks): void {
    this.#hooks.set(type, hooks);
  }

  hooksFor(type: string): OutboxHooks | undefined {
    return this.#hooks.get(type);
  }

  removeHooks(types: readonly string[]): void {
    for (const t of types) this.#hooks.delete(t);
  }

  /** Queues a message; call inside the transaction that makes the change it announces. */
  enqueue(target: PeerTarget, payload: PeerPayload, messageId?: string): string {
    const id = messageId ?? `msg_${randomBytes(12).toString('hex')}`;
    const now = Date.now();
    this.#insert.run(id, payload.type, storeTarget(target), JSON.stringify(payload), now, now, now);
    this.tx.afterCommit(() => this.kick());
    return id;
  }

  start(): void {
    this.#running = true;
    this.kick();
  }

  stop(): void {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
  }

  /** Resolves once the attempts under way have recorded their outcome (after stop: none start). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#attempts]);
  }

  /** Holds every queued message where it is (transports down): none is attempted, none spends a retry. */
  #held = false;

  hold(held: boolean): void {
    this.#held = held;
    if (!held) this.kick();
  }

  kick(): void {
    if (!this.#running || this.#kickQueued) return;
    this.#kickQueued = true;
    outsideRequest(() =>
      setImmediate(() => {
        this.#kickQueued = false;
        this.#pump();
      }),
    );
  }

  /** Sends one stored message now (operator retry from the dead letter queue). */
  async sendNow(id: string, target: PeerTarget, payload: PeerPayload): Promise<PeerReply & { address: string }> {
    return this.client.request(target, payload, id, true);
  }

  #pump(): void {
    if (!this.#running || this.#held) return;
    try {
      this.#pumpDue();
    } catch (err) {
      this.#pause(err);
    }
  }

  /**
   * The outbox could not read or record its own rows (the disk is full, read-only or failing): a message whose
   * outcome was not recorded is still pending, and sending it again at once would only repeat the exchange. Nothing
   * is attempted for a backoff, or until the disk takes writes again; the message is then resent and the peer answers
   * it from its record.
   */
  #pause(err: unknown): void {
    const onDisk = this.tx.storage?.failed(err) ?? null;
    const wait = storageRetryMs(++this.#pauses);
    this.#pausedUntil = Date.now() + wait;
    this.log.error('outbox paused: its records could not be read or written', { error: err instanceof Error ? err.message : String(err), storage: onDisk, retry_in_ms: wait });
    this.#armTimer();
  }

  #pumpDue(): void {
    const now = Date.now();
    if (now < this.#pausedUntil) return this.#armTimer();
    for (const row of this.#due.all(now) as Row[]) {
      if (this.#inFlight.size >= MAX_IN_FLIGHT) break;
      if (this.#inFlight.has(row.id)) continue;
      const target = loadTarget(row.target);
      const who = recipientKey(target);
      if (this.#busyRecipients.has(who)) continue;
      this.#inFlight.add(row.id);
      this.#busyRecipients.add(who);
      const attempt: Promise<void> = this.#attempt(row, target).then(
        () => {
          this.#pauses = 0;
        },
        (err: unknown) => this.#pause(err),
      ).finally(() => {
        this.#inFlight.delete(row.id);
        this.#busyRecipients.delete(who);
        this.#attempts.delete(attempt);
        this.kick();
      });
      this.#attempts.add(attempt);
    }
    this.#armTimer();
  }

  #armTimer(): void {
    const next = this.#pausedUntil > Date.now() ? this.#pausedUntil : (this.#nextDue.get() as { at: number | null }).at;
    if (next === null || !this.#running) return;
    const at = Math.max(next, Date.now() + 5);
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      this.#pump();
    }, at - Date.now());
    this.#timer.unref();
  }

  async #attempt(row: Row, target: PeerTarget): Promise<void> {
    const payload = JSON.parse(row.payload) as PeerPayload;
    const message: QueuedPeerMessage = { id: row.id, target, payload, attempts: row.attempts + 1 };
    const hooks = this.#hooks.get(row.type);
    let reply: PeerReply;
    try {
      reply = await this.client.request(target, payload, row.id, true);
    } catch (err) {
      const reason = err instanceof Error ? `${err instanceof PeerDeliveryError ? err.code + ': ' : ''}${err.message}` : String(err);
      if (waitsForPeerDisk(err, row.created_at, Date.now())) {
        this.#reschedule.run(row.attempts, Date.now() + backoffMs(1), reason, Date.now(), row.id);
        return;
      }
      const final = message.attempts >= DELIVERY_MAX_RETRIES || (err instanceof PeerDeliveryError && !err.transient);
      if (!final) {
        this.#reschedule.run(message.attempts, Date.now() + backoffMs(message.attempts), reason, Date.now(), row.id);
        return;
      }
      this.tx.run(() => {
        this.#setStatus.run('dead', reason, message.attempts, Date.now(), row.id);
        this.deadLetter(message, row.type, reason, recipientAddress(target));
      });
      await this.#runHook(row.type, () => hooks?.dead?.(message, reason));
      return;
    }
    this.#setStatus.run(reply.ok ? 'delivered' : 'refused', reply.error?.code ?? null, message.attempts, Date.now(), row.id);
    await this.#runHook(row.type, () => (reply.ok ? hooks?.delivered?.(message, reply) : hooks?.refused?.(message, reply)));
  }

  /** A failing hook is the owner's bug; it must not turn a delivered message into a retry. */
  async #runHook(type: string, fn: () => void | Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.log.error(`outbox hook for ${type} failed`, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  }

  /** Records the outcome of an operator retry that reached the peer: delivered, or refused by it. */
  markDelivered(id: string, attempts: number, refusal: string | null = null): void {
    this.#setStatus.run(refusal === null ? 'delivered' : 'refused', refusal, attempts, Date.now(), id);
  }
}
