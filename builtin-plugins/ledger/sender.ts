/**
 * The send queue: outgoing direct payments, one at a time per chain (contact and currency), in creation order;
 * different chains in parallel. Event-driven: a payment is sent the moment the transaction that created it
 * commits; the only timers are the next due retry or expiry and a slow sweep for rows stuck in `sending`.
 *
 * One attempt:
 *   1. (db tx) re-read the row; sign it onto the current chain head unless it is in doubt (then its signed
 *      content is resent unchanged); status `sending`, `in_doubt` = 1, `sending_started_at` = now. Payments queued
 *      behind it on the chain travel with it (pipelining, protocol.ts): each signed onto the one before, in the same
 *      transaction. A payment created on a chain with nothing of ours in flight takes this step in the transaction
 *      that creates it (signAtCreation), and step 2 starts on the microtask after that commits.
 *   2. ctx.peer.request(`ledger.send`) and wait for the reply: one exchange for the whole batch.
 *   3. (db tx) record every outcome: completed (with balances), rejected, cancelled, back to pending for a retry,
 *      or failed (a delivery failure also parks the payment in the dead letter queue: dead-letters.ts).
 */
import { PeerDeliveryError, storageFault, type PeerReply } from '../../sdk/index.js';
import { backoffMs, waitsForPeerDisk } from '../../sdk/retry.js';
import { buildContent, parseContent, signedBytes, ContentError, KIND_CLEARING, MEMO_STANDARD } from './content.js';
import type { LedgerCore } from './core.js';
import { DELIVERY_FAILED, RECOVERY_EXHAUSTED, type LedgerDeadLetters, type RetryQueue } from './dead-letters.js';
import type { TxPatch } from './store/transactions.js';
import { currencyKey, type TxRow } from './store/rows.js';
import { LEDGER_EVENTS } from './api.js';
import { MSG, REFUSAL, type FollowingResult, type SendPayload, type SendReply } from './protocol.js';

/** Transport failures before a payment is failed (DELIVERY_MAX_RETRIES of the outbox). */
export const MAX_TRANSPORT_FAILURES = 5;
/** Re-pointings after `invalid_previous_txid` that made no progress (the chain head had not moved) before a payment is failed. */
export const MAX_REPOINTS = 3;
/** `chain_busy` answers (the peer is settling a payment of its own on the same chain) while the chain head stood still, before a payment is failed. */
export const MAX_BUSY_RETRIES = 60;
/** Crash recoveries of a payment stuck in `sending` before it is failed and flagged for review. */
export const MAX_RECOVERIES = 3;
/** A row in `sending` this long without a live attempt is treated as stuck (the startup recovery takes every one). */
export const STUCK_SENDING_MS = 120_000;
const SWEEP_MS = 30_000;
const STOP_WAIT_MS = 3000;

/**
 * Error codes of PeerDeliveryError that prove the peer did not run the handler for this attempt (it answered an
 * error before dispatch, or the message never left this node).
 */
const NOT_DELIVERED = new Set([
  'malformed',
  'wrong_recipient',
  'expired',
  'bad_signature',
  'signature_required',
  'undecryptable',
  'unexpected_sender',
  'replay',
  'retired',
  'handler_error',
  'insufficient_storage',
  'hello_failed',
  'hello_invalid',
  'identity_mismatch',
  'tls_pin_mismatch',
  'bad_address',
  'tor_cooldown',
  'tor_unavailable',
  'no_target',
]);

/** Socket errors that mean no connection was made: the message cannot have reached the peer. */
const NEVER_CONNECTED = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_FAIL|EHOSTUNREACH|ENETUNREACH)\b/;

const busyDelay = (n: number): number => Math.min(10 * 2 ** Math.min(n, 8), 1000) + Math.floor(Math.random() * 10);
/** The wait a contact that holds its next batch for us asks (`retry_after_ms`), within bounds, and a little jitter. */
const askedDelay = (asked: unknown): number => Math.min(Math.max(typeof asked === 'number' ? asked : 20, 5), 200) + Math.floor(Math.random() * 10);

/**
 * How long our next batch on a chain waits for the contact whose payment we refused for one of ours (chain_busy, with
 * `yields`): its retry goes first. Without it a node with a steady stream on the chain had a batch in flight at every
 * retry of the other side, and under load both ways one side's payments waited for minutes (a soak of 200,000
 * payments left 15,000 of one node's queued on one chain while its contact's went through).
 */
export const YIELD_MS = 100;

export class SendQueue implements RetryQueue {
  readonly #workers = new Map<string, Promise<void>>();
  /** Chains with new work since the last flush (wake): started without scanning every pending row. */
  readonly #woken = new Map<string, { contactHash: string; ckey: string }>();
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #scanQueued = false;
  #flushQueued = false;
  #stopped = false;
  /** Chains whose next batch waits for the contact's retry (yieldTo), until the time given. */
  readonly #yields = new Map<string, number>();

  constructor(
    private readonly core: LedgerCore,
    private readonly deadLetters: LedgerDeadLetters,
  ) {}

  get #ctx() {
    return this.core.ctx;
  }

  /** New work on one chain (a payment was created or made due): start its worker after this macrotask. */
  wake(contactHash: string, ckey: string): void {
    if (this.#stopped) return;
    this.#woken.set(chainKey(contactHash, ckey), { contactHash, ckey });
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushQueued = false;
      if (!this.running()) return;
      for (const [key, chain] of this.#woken) {
        this.#woken.delete(key);
        this.#start(chain.contactHash, chain.ckey);
      }
    });
  }

  /**
   * A payment just created on a chain where nothing of ours is in flight or waiting (call inside the transaction that
   * creates it): it is signed in that transaction and leaves on the microtask after the commit, not a turn and a
   * transaction of its own later. False when the chain is busy: the caller wakes the queue as for any payment.
   */
  signAtCreation(row: TxRow): boolean {
    const key = chainKey(row.contactHash, row.currencyKey);
    if (!this.running() || this.#workers.has(key) || this.#yields.has(key)) return false;
    // A payment of ours in flight on the chain with no worker yet (signed here by a request whose transaction committed
    // just before this one, its worker starting on the next microtask), or one waiting: this one goes in the queue, behind it.
    if (this.core.store.queue.othersOut(row.contactHash, row.currencyKey, row.seq)) return false;
    const prepared = this.#prepare([row], true);
    if (prepared) this.#ctx.db.afterCommit(() => this.#start(row.contactHash, row.currencyKey, prepared));
    return true;
  }

  /** We refused the contact's payment on the chain for one of ours: our next batch there waits for its retry. */
  yieldTo(contactHash: string, ckey: string): void {
    this.#yields.set(chainKey(contactHash, ckey), this.core.now() + YIELD_MS);
  }

  /** A payment of the contact's on the chain was taken: what we held back for it goes now. */
  yielded(contactHash: string, ckey: string): void {
    if (this.#yields.delete(chainKey(contactHash, ckey))) this.wake(contactHash, ckey);
  }

  /** Looks at every chain (startup, timers, the sweep): due chains start, the next due time arms the timer. */
  kick(): void {
    if (this.#stopped || this.#scanQueued) return;
    this.#scanQueued = true;
    setImmediate(() => {
      this.#scanQueued = false;
      this.#scan();
    });
  }

  registerJobs(): void {
    this.#ctx.jobs.register({
      name: 'send-sweep',
      processor: 'transaction',
      everyMs: SWEEP_MS,
      run: () => {
        this.recoverStuck(this.core.now() - STUCK_SENDING_MS, false);
        this.kick();
      },
    });
  }

  /** Starts sending once the node's processors run (they start after every plugin is loaded). */
  startWhenRunning(deadline = Date.now() + 30_000): void {
    if (this.#stopped) return;
    if (this.#ctx.kernel.jobs.running()) return this.kick();
    if (Date.now() > deadline) return; // the sweep job takes over when processors start later
    setTimeout(() => this.startWhenRunning(deadline), 20).unref();
  }

  /**
   * Stops taking work and waits for the attempts in flight, at most STOP_WAIT_MS: an attempt still waiting on an
   * unreachable peer is left in `sending`, and the next start recovers it (resent, settled once).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([Promise.allSettled([...this.#workers.values()]), cap]);
    clearTimeout(timer);
  }

  /**
   * Rows in `sending` with no attempt alive go back to `pending`, in doubt (the peer may hold them: it answers a
   * resend from its record), or to `failed` + needs_review after MAX_RECOVERIES. At startup every `sending` row is
   * orphaned (this process is the only writer of its database and nothing was in flight before it started).
   * `diskFault`: the rows were left by attempts whose record the disk refused, not by a crash; that does not count
   * towards MAX_RECOVERIES, as a full disk says nothing about the payment.
   */
  recoverStuck(olderThan: number, startup: boolean, diskFault = false): number {
    const rows = this.core.store.queue.sendingRows(olderThan).filter((r) => startup || !this.#workers.has(chainKey(r.contactHash, r.currencyKey)));
    if (rows.length === 0) return 0;
    this.#ctx.db.tx(() => {
      for (const r of rows) {
        const fresh = this.core.store.transactions.get(r.txid)!;
        if (fresh.status !== 'sending') continue;
        // A fulfilled routed leg is owed whatever happens: it is resent, never given up.
        if (!diskFault && fresh.recoveryCount >= MAX_RECOVERIES && !fresh.condition) {
          const reason = 'stuck in sending after 3 recoveries';
          this.core.finalize(fresh, 'failed', `${RECOVERY_EXHAUSTED}: ${reason}`, { needsReview: true, inDoubt: true });
          this.deadLetters.giveUp(fresh.txid, new PeerDeliveryError(RECOVERY_EXHAUSTED, reason));
        } else {
          this.core.update(fresh, {
            status: 'pending',
            inDoubt: true,
            recoveryCount: fresh.recoveryCount + (diskFault ? 0 : 1),
            sendingStartedAt: null,
            nextAttemptAt: this.core.now(),
          });
        }
      }
    });
    this.#ctx.log.warn('payments recovered from sending', { count: rows.length, startup, disk_fault: diskFault });
    return rows.length;
  }

  /**
   * The disk takes writes again (KERNEL_EVENTS.storageRecovered): the attempts whose outcome it refused left their rows
   * in `sending`; they go back to the queue at once (in doubt: the peer answers a resend from its record), and every
   * chain is looked at again.
   */
  resumeAfterStorage(): void {
    if (this.#stopped) return;
    try {
      this.recoverStuck(Number.MAX_SAFE_INTEGER, false, true);
    } catch (err) {
      // Refused again: the next recovery of the disk calls this again.
      this.#ctx.log.warn('payments not resumed yet', { error: err instanceof Error ? err.message : String(err) });
      return;
    }
    this.kick();
  }

  /** Our unresolved payment on a chain should be retried now (the peer is evidently reachable). */
  expedite(row: TxRow): void {
    if (row.status !== 'pending' || row.nextAttemptAt <= this.core.now()) return;
    this.#ctx.db.tx(() => {
      const fresh = this.core.store.transactions.get(row.txid);
      if (fresh && fresh.status === 'pending') this.core.update(fresh, { nextAttemptAt: this.core.now() });
    });
    this.wake(row.contactHash, row.currencyKey);
  }

  /**
   * An outgoing payment whose fate we had given up on (failed, cancelled after a lost answer) turns out to be held
   * by the peer: send it again as it was signed; the peer answers from its record and it completes here too.
   * Call inside a transaction.
   */
  revive(row: TxRow, why: string): boolean {
    if (row.type !== 'sent' || !row.content || (row.status !== 'failed' && row.status !== 'cancelled')) return false;
    this.#reopen(row, { inDoubt: true, heldOnly: true, attempts: 0 }, `revived: ${why}`);
    this.#ctx.log.warn('payment revived', { txid: row.txid, why });
    return true;
  }

  /**
   * A payment failed for delivery sent again (an operator retry from the dead letter queue, or of the payment request
   * it paid): it goes back to `pending` for one more
   * attempt (its attempts stay at the limit, so a transport failure fails it again at once). Not in doubt, it is
   * re-signed onto the current chain head when it leaves the queue (same txid and time: the txid commits to them);
   * in doubt, it is resent unchanged and the peer answers from its record. Call inside a transaction.
   */
  retryFailed(row: TxRow, why: string): void {
    this.#reopen(row, { attempts: Math.max(row.attempts, MAX_TRANSPORT_FAILURES - 1), repoints: 0, heldOnly: false }, `retried: ${why}`);
    this.#ctx.log.info('failed payment sent again', { txid: row.txid, in_doubt: row.inDoubt, why });
  }

  #reopen(row: TxRow, patch: TxPatch, reason: string): void {
    this.core.update(row, { ...patch, status: 'pending', busyRetries: 0, nextAttemptAt: this.core.now(), failureReason: reason });
    this.#ctx.db.afterCommit(() => this.wake(row.contactHash, row.currencyKey));
  }

  // ---- dispatch

  /** Whether payments are being sent: the node's processors run and the queue is not stopping. */
  running(): boolean {
    return !this.#stopped && this.#ctx.kernel.jobs.running();
  }

  #start(contactHash: string, ckey: string, signed?: Prepared): void {
    const key = chainKey(contactHash, ckey);
    if (this.#workers.has(key)) return; // the running worker picks the new row up in its loop
    const worker = this.#work(contactHash, ckey, signed).finally(() => this.#workers.delete(key));
    this.#workers.set(key, worker);
  }

  #scan(): void {
    if (!this.running()) return;
    const now = this.core.now();
    this.#expireUnsent(now);
    let nextAt = Infinity;
    for (const chain of this.core.store.queue.pendingChains()) {
      if (this.#workers.has(chainKey(chain.contact_hash, chain.currency_key))) continue;
      if (chain.next_attempt_at > now) nextAt = Math.min(nextAt, chain.next_attempt_at);
      else this.#start(chain.contact_hash, chain.currency_key);
    }
    const expiry = this.core.store.queue.nextExpiry();
    if (expiry !== null) nextAt = Math.min(nextAt, expiry);
    this.arm(nextAt);
  }

  /** Makes sure a scan runs at `at` (the next retry or expiry). One timer for the whole queue. */
  arm(at: number): void {
    if (at === Infinity || this.#stopped) return;
    const when = Math.max(at, Date.now() + 5);
    if (this.#timer && this.#timerAt <= when) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = when;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      this.#scan();
    }, when - Date.now());
    this.#timer.unref();
  }

  #expireUnsent(now: number): void {
    const rows = this.core.store.queue.expiredUnsent(now);
    if (rows.length === 0) return;
    this.#ctx.db.tx(() => {
      for (const r of rows) {
        const fresh = this.core.store.transactions.get(r.txid)!;
        if (fresh.status === 'pending' && !fresh.inDoubt) this.core.finalize(fresh, 'cancelled', 'expired: not delivered within directTxExpiration');
      }
    });
  }

  /**
   * Sends the chain's pending payments oldest first, one in doubt before any other (store.queue.nextPending); stops at the
   * first one not due yet (and arms the timer).
   */
  async #work(contactHash: string, ckey: string, signed?: Prepared): Promise<void> {
    const key = chainKey(contactHash, ckey);
    // Signed as it was created (signAtCreation): it leaves first, whatever is due or held on the chain.
    if (signed && !(await this.#tryAttempt(signed.sending[0]!, () => this.#deliver(signed)))) return;
    for (;;) {
      if (!this.running()) return;
      const row = this.core.store.queue.nextPending(contactHash, ckey);
      if (!row) return;
      if (row.nextAttemptAt > this.core.now()) {
        this.arm(row.nextAttemptAt);
        return;
      }
      const held = this.#yields.get(key);
      if (held !== undefined && held > this.core.now()) {
        this.arm(held);
        return;
      }
      this.#yields.delete(key);
      if (!(await this.#tryAttempt(row, () => this.#attempt(this.#batchOf(row))))) return;
    }
  }

  /** Runs one attempt; false when it threw, and the chain's worker stops (the disk, or a bug: logged). */
  async #tryAttempt(row: TxRow, attempt: () => Promise<void>): Promise<boolean> {
    try {
      await attempt();
      return true;
    } catch (err) {
      const fault = storageFault(err);
      if (fault) {
        // resumeAfterStorage takes the chain up again once the disk takes writes.
        this.#ctx.log.warn('payment attempt held: the disk refused its record', { txid: row.txid, storage: fault });
        return false;
      }
      // A bug must not wedge the chain: the row stays where it is and the sweep recovers it if it was sending.
      this.#ctx.log.error('payment attempt failed unexpectedly', { txid: row.txid, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return false;
    }
  }

  // ---- one attempt

  /**
   * The payments that leave together: a plain payment takes the due, plain payments queued behind it on the chain
   * (in order, up to the first that cannot join). A payment in doubt, held only, or a routed leg goes alone.
   */
  #batchOf(row: TxRow): TxRow[] {
    if (!pipelined(row)) return [row];
    const now = this.core.now();
    const batch = [row];
    for (const next of this.core.store.queue.pendingAfter(row.contactHash, row.currencyKey, row.seq)) {
      if (!pipelined(next) || next.nextAttemptAt > now) break;
      batch.push(next);
    }
    return batch;
  }

  async #attempt(rows: TxRow[]): Promise<void> {
    const prepared = this.#prepare(rows);
    if (prepared) await this.#deliver(prepared);
  }

  async #deliver(prepared: Prepared): Promise<void> {
    const { sending, wasInDoubt } = prepared;
    const [first, ...rest] = sending as [TxRow, ...TxRow[]];
    const target = this.core.contacts.target(first.contactHash);
    let reply: PeerReply;
    try {
      if (!target) throw new PeerDeliveryError('no_target', 'the contact has no known keys or address');
      const payload: SendPayload = {
        type: MSG.send,
        content: first.content!,
        sender_signature: first.senderSignature!,
        ...(first.heldOnly ? { held_only: true as const } : {}),
        ...(rest.length > 0 ? { following: rest.map((r) => ({ content: r.content!, sender_signature: r.senderSignature! })) } : {}),
      };
      reply = await this.#ctx.peer.request(target, payload);
    } catch (err) {
      // With a Tor address the kernel may fall back to https/http: an earlier path may have delivered.
      this.#ctx.db.tx(() => {
        for (const r of sending) this.#transportFailure(r, err, wasInDoubt, !target?.addresses.tor);
      });
      return;
    }
    const peerKey = reply.sender.publicKey;
    this.#ctx.db.tx(() => {
      if (!reply.ok) {
        this.#refused(first, { code: reply.error?.code ?? 'refused', message: reply.error?.message ?? '', data: reply.data });
        for (const r of rest) this.#notAttempted(r);
        return;
      }
      // The credit the contact still extends, as of its answer to the last payment it took (one write per batch).
      let available = this.#accepted(first, reply.data as Partial<SendReply>, peerKey);
      const results = Array.isArray(reply.data.following) ? (reply.data.following as unknown[]) : [];
      rest.forEach((r, i) => {
        const result = results[i] as Partial<FollowingResult> | undefined;
        if (result === undefined) this.#notAttempted(r);
        else if (result?.status === 'completed') available = this.#accepted(r, result as Partial<SendReply>, peerKey) ?? available;
        else if (result?.status === 'refused' && typeof result.code === 'string') {
          this.#refused(r, { code: result.code, message: String(result.message ?? ''), data: isRecord(result.data) ? result.data : {} });
        } else this.#transportFailure(r, new PeerDeliveryError('invalid_reply', 'a malformed answer for a following payment'), true);
      });
      if (available !== null) this.core.contacts.recordAvailableCredit(first.contactHash, first.currency, available);
    });
  }

  /**
   * Signs (unless in doubt) and moves the rows to `sending`, each onto the one before; null when there is nothing to send.
   * `current`: the rows were written in the transaction open now, so they are not read again.
   */
  #prepare(rows: TxRow[], current = false): Prepared | null {
    return this.#ctx.db.tx(() => {
      const sending: TxRow[] = [];
      let prev: string | null | undefined;
      for (const row of rows) {
        const r = current ? row : this.core.store.transactions.get(row.txid);
        if (!r || r.status !== 'pending') continue;
        if (r.inDoubt) {
          // Only ever alone (#batchOf): resent as signed.
          return { sending: [this.core.update(r, { status: 'sending', sendingStartedAt: this.core.now() })], wasInDoubt: true };
        }
        const now = this.core.now();
        if (r.expiresAt !== null && r.expiresAt <= now) {
          this.core.finalize(r, 'cancelled', 'expired: not delivered within directTxExpiration');
          continue;
        }
        if (!r.condition && !this.core.contacts.line(r.contactHash, r.currency)) {
          this.core.finalize(r, 'rejected', 'contact_not_accepted: the contact or its line in this currency is not accepted');
          continue;
        }
        prev = prev === undefined ? this.core.store.chains.head(r.contactHash, r.currency) : prev;
        const content = buildContent({
          txid: r.txid,
          prev,
          from: r.fromHash,
          to: r.toHash,
          amount: r.amount.toString(),
          currency: r.currency,
          time: r.timeMicros,
          salt: r.salt,
          ...(r.condition
            ? // A fulfilled routed leg: its description (the originator's own) stays on this node.
              { memo: r.memo, condition: r.condition, fulfillment: r.fulfillment ?? undefined, ...(r.txType === KIND_CLEARING ? { kind: KIND_CLEARING } : {}) }
            : {
                memo: MEMO_STANDARD,
                ...(r.description ? { description: r.description } : {}),
                ...(r.expiresAt !== null ? { expires: r.expiresAt } : {}),
              }),
        });
        const signature = this.#ctx.identity.sign(signedBytes(content)).toString('base64url');
        sending.push(
          this.core.update(r, {
            prevTxid: prev,
            content,
            senderSignature: signature,
            status: 'sending',
            inDoubt: true,
            sendingStartedAt: now,
          }),
        );
        prev = r.txid;
      }
      return sending.length > 0 ? { sending, wasInDoubt: false } : null;
    });
  }

  /** A following payment the peer did not look at (a refusal before it): back to the queue, to be signed again. */
  #notAttempted(row: TxRow): void {
    const r = this.core.store.transactions.get(row.txid);
    if (!r || r.status !== 'sending') return;
    this.core.update(r, { status: 'pending', inDoubt: false, sendingStartedAt: null, nextAttemptAt: this.core.now() });
  }

  /**
   * A fulfilled routed leg whose entry did not get through (call inside the transaction that read it `sending`): its
   * payee holds the preimage and this node was paid upstream with it, so the entry is owed. It is parked for the
   * operator to see, and keeps going at the slowest retry pace, never failed.
   */
  #parkOwed(r: TxRow, failure: PeerDeliveryError, inDoubt: boolean): void {
    const attempts = r.attempts + 1;
    this.deadLetters.undelivered({ ...r, attempts }, failure);
    this.core.update(r, {
      status: 'pending',
      attempts,
      inDoubt,
      sendingStartedAt: null,
      failureReason: `${failure.code}: ${failure.message}`,
      nextAttemptAt: this.core.now() + backoffMs(MAX_TRANSPORT_FAILURES),
    });
  }

  #transportFailure(row: TxRow, err: unknown, wasInDoubt: boolean, singlePath = false): void {
    const failure = err instanceof PeerDeliveryError ? err : new PeerDeliveryError('error', err instanceof Error ? err.message : String(err));
    const code = failure.code;
    const reason = `${code}: ${failure.message}`;
    const delivered = !(NOT_DELIVERED.has(code) || /^http_\d+$/.test(code) || (singlePath && code === 'unreachable' && NEVER_CONNECTED.test(reason)));
    const inDoubt = wasInDoubt || delivered;
    const permanent = !failure.transient;
    const counted = this.#ctx.db.tx(() => {
      const r = this.core.store.transactions.get(row.txid);
      if (!r || r.status !== 'sending') return false;
      const now = this.core.now();
      if (waitsForPeerDisk(failure, r.createdAt, now)) {
        // Not counted: the contact is up and takes the payment once its disk does (the chain waits for it anyway).
        this.core.update(r, { status: 'pending', inDoubt, sendingStartedAt: null, failureReason: reason, nextAttemptAt: now + backoffMs(1) });
        return false;
      }
      const attempts = r.attempts + 1;
      if (r.condition && (permanent || attempts >= MAX_TRANSPORT_FAILURES)) {
        this.#parkOwed(r, failure, inDoubt);
        return true;
      }
      if (permanent || attempts >= MAX_TRANSPORT_FAILURES) {
        const failed = this.core.finalize(r, 'failed', `${DELIVERY_FAILED} after ${attempts} attempt(s): ${reason}`, {
          attempts,
          inDoubt,
          needsReview: inDoubt,
        });
        this.deadLetters.undelivered(failed, failure);
        return true;
      }
      this.core.update(r, {
        status: 'pending',
        attempts,
        inDoubt,
        sendingStartedAt: null,
        failureReason: reason,
        nextAttemptAt: now + backoffMs(attempts),
      });
      return true;
    });
    if (counted) this.#ctx.log.warn('payment delivery failed', { txid: row.txid, reason });
  }

  /** Completes a payment the contact countersigned; returns the credit it says it still extends (null if not told). */
  #accepted(row: TxRow, data: Partial<SendReply>, peerKey: Buffer): bigint | null {
    // The very bytes this node built from the row and signed (the usual answer): nothing in them to check again.
    const ours = data.content === row.content;
    let prev: string | null;
    try {
      if (data.status !== 'completed') throw new ContentError(`unexpected status ${String(data.status)}`);
      if (ours) {
        prev = row.prevTxid;
      } else {
        const content = parseContent(data.content);
        if (content.txid !== row.txid || content.from !== row.fromHash || content.to !== row.toHash || content.amountMinor !== row.amount) {
          throw new ContentError('the countersigned content is not this payment');
        }
        if (currencyKey(content.currency) !== row.currencyKey) throw new ContentError('the countersigned currency differs');
        prev = content.prev;
      }
      const bytes = signedBytes(data.content!);
      if (typeof data.recipient_signature !== 'string' || !this.#ctx.identity.verify(peerKey, bytes, Buffer.from(data.recipient_signature, 'base64url'))) {
        throw new ContentError('the recipient signature does not verify');
      }
      if (!ours) {
        // The peer holds an earlier signing of this payment (a resend after a crash re-signed it): it must be ours.
        if (typeof data.sender_signature !== 'string' || !this.#ctx.identity.verify(this.#ctx.identity.publicKey, bytes, Buffer.from(data.sender_signature, 'base64url'))) {
          throw new ContentError('the peer holds a content this node did not sign');
        }
      }
    } catch (err) {
      this.#transportFailure(row, new PeerDeliveryError('invalid_reply', err instanceof Error ? err.message : String(err)), true);
      return null;
    }
    return this.#ctx.db.tx(() => {
      const r = this.core.store.transactions.get(row.txid);
      if (!r || r.status === 'completed') return null;
      const head = this.core.store.chains.head(r.contactHash, r.currency);
      const anomaly = head !== prev;
      if (anomaly) {
        this.#ctx.log.error('completed payment does not extend the local chain head', { txid: r.txid, head, prev });
      }
      this.core.complete(r, {
        content: data.content!,
        prevTxid: prev,
        senderSignature: ours ? row.senderSignature : data.sender_signature!,
        recipientSignature: data.recipient_signature!,
        counterpartyPublicKey: peerKey.toString('base64url'),
        needsReview: anomaly || r.needsReview,
      });
      return reportedCredit(data.available_credit);
    });
  }

  #refused(row: TxRow, refusal: { code: string; message: string; data: Record<string, unknown> }): void {
    const { code, message } = refusal;
    let kick = false;
    this.#ctx.db.tx(() => {
      const r = this.core.store.transactions.get(row.txid);
      if (!r || r.status !== 'sending') return;
      const now = this.core.now();
      if (r.condition && !RETRIED_REFUSALS.has(code)) {
        // Whatever the payee answers: it holds the preimage and has counted the leg.
        this.#parkOwed(r, new PeerDeliveryError(code, message), false);
        return;
      }
      // Where the queue stops re-signing (the chain stays busy, or it does not match the contact's), a payment fails;
      // a fulfilled routed leg is owed and is parked instead: re-signed later onto the head chain sync repaired.
      const giveUp = (reason: string, needsReview: boolean): void => {
        if (r.condition) this.#parkOwed(r, new PeerDeliveryError(code, reason), false);
        else this.core.finalize(r, 'failed', reason, { inDoubt: false, ...(needsReview ? { needsReview } : {}) });
      };
      if (code === REFUSAL.insufficientCredit) {
        // What the contact says it still extends: the next send above it looks for a route first.
        const available = reportedCredit(refusal.data.available_credit);
        if (available !== null) this.core.contacts.recordAvailableCredit(r.contactHash, r.currency, available);
      }
      switch (code) {
        case REFUSAL.notHeld: {
          this.core.finalize(r, 'failed', `${code}: the contact named this payment as its chain head but holds no record of it; not sent again without the operator`, {
            inDoubt: false,
            heldOnly: false,
            needsReview: true,
          });
          return;
        }
        case REFUSAL.chainBusy: {
          // As with re-pointings below: the contact's own payments landing here while ours waits is progress, not a
          // stuck chain. Under a backlog both ways a high txid loses every tie and met 61 busy answers in a row
          // (issue 27's soak: 10 of 20,000 failed, every txid from fb to ff). Only answers while our head stands still count.
          const progressed = this.core.store.chains.head(r.contactHash, r.currency) !== r.prevTxid;
          const busy = progressed ? r.busyRetries : r.busyRetries + 1;
          if (busy > MAX_BUSY_RETRIES) {
            giveUp(`chain_busy: the contact kept settling its own payments (${busy} tries)`, false);
            return;
          }
          // A contact that holds its next batch for us asks for the retry at once; one that does not, backed off.
          const wait = refusal.data.yields === true ? askedDelay(refusal.data.retry_after_ms) : busyDelay(busy);
          this.core.update(r, { status: 'pending', inDoubt: false, busyRetries: busy, sendingStartedAt: null, nextAttemptAt: now + wait });
          kick = true;
          return;
        }
        case REFUSAL.invalidPrevious: {
          // Back to the queue at once, to be signed again onto the head (or behind the payment of ours before it).
          const resign = (repoints: number): void => {
            this.core.update(r, { status: 'pending', inDoubt: false, repoints, sendingStartedAt: null, nextAttemptAt: now });
            kick = true;
          };
          const before = r.prevTxid ? this.core.store.transactions.get(r.prevTxid) : null;
          if (before && before.type === 'sent' && before.contactHash === r.contactHash && before.status !== 'completed') {
            // Signed onto a payment of ours the contact has not taken (a follower resent in doubt after the one before
            // it was refused, so back in the queue): no contact could accept this link yet. It goes again behind that
            // payment, or onto the head if that one failed, and the refusal says nothing of the contact's chain.
            resign(r.repoints);
            return;
          }
          const expected = typeof refusal.data.expected_txid === 'string' ? refusal.data.expected_txid : null;
          const head = this.core.store.chains.head(r.contactHash, r.currency);
          // The chain moved on since we signed (the contact's own payments landed here meanwhile): that is progress,
          // however often it happens under traffic both ways, whichever link the contact named: its refusal was
          // written before its next payment, which may overtake the answer and land here first (then `expected` is
          // a link behind our head). A payment with a high txid loses every tie on the chain (receiver.ts) and so
          // meets this again and again under steady load. Only refusals while our head stands still count.
          const progressed = head !== r.prevTxid;
          const repoints = progressed ? r.repoints : r.repoints + 1;
          if (repoints > MAX_REPOINTS) {
            giveUp(`invalid_previous_txid: still refused after ${MAX_REPOINTS} re-pointings (expected ${expected})`, true);
            return;
          }
          if (expected === head) {
            // Our head moved since we signed: re-sign onto it.
            resign(repoints);
            return;
          }
          const known = expected ? this.core.store.transactions.get(expected) : null;
          if (known && known.contactHash === r.contactHash && known.status === 'completed') {
            // The contact's head is an earlier link of our chain: the links after it are its own payments, settled
            // here and not yet there (their answers are on the way). A lag, not a fork: re-sign onto our head; the
            // contact answers chain_busy until it has caught up. Only MAX_REPOINTS of these without progress.
            resign(repoints);
            return;
          }
          if (known && known.contactHash === r.contactHash && this.revive(known, `the contact's chain head is this payment (refusal of ${r.txid})`)) {
            resign(repoints);
            return;
          }
          giveUp(`chain_mismatch: the contact expects previous ${expected ?? 'null'}, this node's head is ${head ?? 'null'}`, true);
          // The contact holds links this node lacks: chain sync can fetch them (the next payment then goes through).
          this.#ctx.events.publish(LEDGER_EVENTS.chainMismatch, { pubkey_hash: r.contactHash, currency: r.currency });
          return;
        }
        case REFUSAL.expired:
          this.core.finalize(r, 'cancelled', `expired: ${message}`, { inDoubt: false });
          return;
        default:
          this.core.finalize(r, 'rejected', `${code}: ${message}`, { inDoubt: false });
      }
    });
    if (kick) this.wake(row.contactHash, row.currencyKey);
  }
}

/** Payments moved to `sending` for one attempt, in chain order; `wasInDoubt`: a resend of one signed before. */
interface Prepared {
  sending: TxRow[];
  wasInDoubt: boolean;
}

/** Refusals the queue answers by signing the entry again (onto the head the payee expects, or after its own payment). */
const RETRIED_REFUSALS = new Set<string>([REFUSAL.chainBusy, REFUSAL.invalidPrevious]);

/** Whether a payment may travel in a batch: a plain one, signed afresh (a leg or a resend goes alone). */
const pipelined = (row: TxRow): boolean => !row.inDoubt && !row.heldOnly && !row.condition;

/** The credit a contact reports it extends (`available_credit`, minor units as text), or null when it is not one. */
const reportedCredit = (v: unknown): bigint | null => (typeof v === 'string' && /^\d{1,40}$/.test(v) ? BigInt(v) : null);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const chainKey = (contactHash: string, ckey: string): string => `${contactHash}:${ckey}`;
