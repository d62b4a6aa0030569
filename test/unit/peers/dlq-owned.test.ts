/**
 * Dead letters owned by plugins (kernel/peers/dlq.ts): parked and resolved by their owner inside its transaction,
 * retried through the owner's `retry` hook instead of the outbox.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PeerDeliveryError, type DeadLetter, type DeadLetterOutcome, type Logger, type QueuedPeerMessage } from '../../../sdk/index.js';
import { migrate } from '../../../kernel/db/migrations.js';
import { TxRunner } from '../../../kernel/db/tx.js';
import { ApiError } from '../../../kernel/errors.js';
import { kernelMigrations } from '../../../kernel/migrations.js';
import type { PeerClient } from '../../../kernel/peers/client.js';
import { DeadLetterQueue } from '../../../kernel/peers/dlq.js';
import { Outbox } from '../../../kernel/peers/outbox.js';

const TYPE = 'thing.send';
const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
/** The outbox must never send an owned item: its client throws. */
const noClient = {
  request: () => Promise.reject(new Error('the outbox sent an owned dead letter')),
} as unknown as PeerClient;

const letter = (over: Partial<DeadLetter> = {}): DeadLetter => ({
  messageId: 'm1',
  type: TYPE,
  target: { pubkeyHash: 'ab'.repeat(32), addresses: { http: 'http://127.0.0.1:9', https: 'https://127.0.0.1:9' } },
  payload: { type: TYPE, n: 1 },
  attempts: 5,
  reason: 'unreachable: connect ECONNREFUSED',
  ...over,
});

describe('DeadLetterQueue: items owned by a plugin', () => {
  let db: Database.Database;
  let dlq: DeadLetterQueue;
  let outbox: Outbox;
  let retries: QueuedPeerMessage[];
  let answer: () => Promise<DeadLetterOutcome>;

  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db, 'kernel', kernelMigrations);
    dlq = new DeadLetterQueue(db, silent);
    outbox = new Outbox(db, new TxRunner(db), noClient, (m, type, reason, address) => dlq.park(m, type, reason, address), silent);
    dlq.attach(outbox);
    retries = [];
    answer = () => Promise.resolve({ ok: true });
    outbox.hooks(TYPE, {
      label: 'thing',
      retryable: true,
      retry: (message) => {
        retries.push(message);
        return answer();
      },
    });
  });
  afterEach(() => db.close());

  it('parks with the owner label and the preferred address; parking again updates a pending item only', () => {
    dlq.deadLetter(letter());
    const [item] = dlq.list(['pending']);
    expect(item).toMatchObject({
      message_id: 'm1',
      message_type: 'thing',
      status: 'pending',
      retry_count: 5,
      recipient_address: 'https://127.0.0.1:9',
      failure_reason: 'unreachable: connect ECONNREFUSED',
      retryable: true,
    });
    dlq.deadLetter(letter({ attempts: 3, reason: 'timeout: no answer' }));
    expect(dlq.get(item!.id)).toMatchObject({ retry_count: 5, failure_reason: 'timeout: no answer' });
    dlq.abandon(item!.id);
    dlq.deadLetter(letter({ attempts: 9, reason: 'later' }));
    expect(dlq.get(item!.id)).toMatchObject({ status: 'abandoned', retry_count: 5, failure_reason: 'timeout: no answer' });
    expect(dlq.list(['pending', 'retrying', 'resolved', 'abandoned'])).toHaveLength(1);
  });

  it('the owner resolves its own pending item, by type and id, with the outcome', () => {
    dlq.deadLetter(letter());
    dlq.deadLetter(letter({ messageId: 'm2' }));
    expect(dlq.resolveDeadLetter('other.type', 'm1', { ok: true })).toBe(false);
    expect(dlq.resolveDeadLetter(TYPE, 'm1', { ok: true })).toBe(true);
    expect(dlq.resolveDeadLetter(TYPE, 'm1', { ok: true })).toBe(false);
    expect(dlq.resolveDeadLetter(TYPE, 'm2', { ok: false, refusal: 'insufficient_credit' })).toBe(true);
    expect(dlq.list(['resolved']).map((i) => [i.message_id, i.failure_reason])).toEqual([
      ['m2', 'refused: insufficient_credit'],
      ['m1', null],
    ]);
    expect(dlq.pendingCount()).toBe(0);
  });

  it('an empty queue is counted once a change has ended, and an item parked after that is resolved all the same', async () => {
    const turn = (): Promise<void> => Promise.resolve();
    const pendingBehindItsBack = (id: string): void =>
      void db
        .prepare(`INSERT INTO peer_dlq (message_id, type, label, target, payload, status, retry_count, added_at, updated_at) VALUES (?, ?, 'thing', '{}', '{}', 'pending', 1, '', '')`)
        .run(id, TYPE);
    expect(dlq.resolveDeadLetter(TYPE, 'm0', { ok: true })).toBe(false);
    await turn();
    // Counted empty: a completion asks nothing of the database (a row written behind the queue's back is not seen).
    pendingBehindItsBack('hidden');
    expect(dlq.resolveDeadLetter(TYPE, 'hidden', { ok: true })).toBe(false);
    db.prepare(`DELETE FROM peer_dlq WHERE message_id = 'hidden'`).run();
    // Parked in a transaction that also resolved another: the count waits for it to end and sees the parked item.
    db.transaction(() => {
      expect(dlq.resolveDeadLetter(TYPE, 'm0', { ok: true })).toBe(false);
      dlq.deadLetter(letter());
    })();
    await turn();
    expect(dlq.resolveDeadLetter(TYPE, 'm1', { ok: true })).toBe(true);
    // Parked in a transaction that rolled back: counted empty again once it ended.
    expect(() =>
      db.transaction(() => {
        dlq.deadLetter(letter({ messageId: 'm2' }));
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(dlq.resolveDeadLetter(TYPE, 'm2', { ok: true })).toBe(false);
    await turn();
    pendingBehindItsBack('hidden');
    expect(dlq.resolveDeadLetter(TYPE, 'hidden', { ok: true })).toBe(false);
    // An abandoned item closes the queue as a resolved one does; the next parked item opens it.
    db.prepare(`DELETE FROM peer_dlq WHERE message_id = 'hidden'`).run();
    dlq.deadLetter(letter({ messageId: 'm3' }));
    dlq.abandon(dlq.list(['pending'])[0]!.id);
    await turn();
    pendingBehindItsBack('hidden');
    expect(dlq.resolveDeadLetter(TYPE, 'hidden', { ok: true })).toBe(false);
    dlq.deadLetter(letter({ messageId: 'm4' }));
    expect(dlq.resolveDeadLetter(TYPE, 'm4', { ok: true })).toBe(true);
  });

  it('a retry runs the owner hook: delivered, refused, or a delivery error (502, pending again)', async () => {
    dlq.deadLetter(letter());
    const id = dlq.list(['pending'])[0]!.id;

    answer = () => Promise.reject(new PeerDeliveryError('unreachable', 'still down'));
    const failed = await dlq.retry(id).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ code: 'dlq_retry_failed', status: 502 });
    expect(dlq.get(id)).toMatchObject({ status: 'pending', retry_count: 6, failure_reason: 'unreachable: still down' });
    expect(retries).toEqual([{ id: 'm1', target: expect.objectContaining({ pubkeyHash: 'ab'.repeat(32) }), payload: { type: TYPE, n: 1 }, attempts: 6 }]);

    answer = () => Promise.resolve({ ok: true, payload: { type: TYPE, n: 2 } });
    expect(await dlq.retry(id)).toMatchObject({ status: 'resolved', retry_count: 7, failure_reason: null });
    expect(JSON.parse((db.prepare('SELECT payload FROM peer_dlq WHERE id = ?').get(id) as { payload: string }).payload)).toEqual({ type: TYPE, n: 2 });
    await expect(dlq.retry(id)).rejects.toMatchObject({ code: 'dlq_invalid_status', status: 400 });

    dlq.deadLetter(letter({ messageId: 'm3' }));
    const refusedId = dlq.list(['pending'])[0]!.id;
    answer = () => Promise.resolve({ ok: false, refusal: 'expired' });
    expect(await dlq.retry(refusedId)).toMatchObject({ status: 'resolved', failure_reason: 'refused: expired' });
  });

  it('without its owner (hooks gone) an item is not retryable', async () => {
    dlq.deadLetter(letter());
    outbox.removeHooks([TYPE]);
    const [item] = dlq.list(['pending']);
    expect(item).toMatchObject({ retryable: false });
    await expect(dlq.retry(item!.id)).rejects.toMatchObject({ code: 'dlq_not_retryable', status: 400 });
  });
});
