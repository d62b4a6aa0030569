/**
 * The webhooks plugin's tables. Nothing else reads them.
 *
 *   webhooks             one row per subscription: the target URL, the events (JSON list), the secret encrypted at rest
 *   webhook_deliveries   one row per event owed to a subscription: the body as first built (the same bytes on every
 *                        attempt, so a receiver can de-duplicate by `X-Webhook-Id`), attempts and the next one's time;
 *                        `pending` until the receiver answers 2xx (`delivered`) or the attempts run out (`dead`, then in
 *                        the dead letter queue). Times in ms since the epoch.
 */
import type { Database, Statement } from 'better-sqlite3';
import { ReadCache, type Migration } from '../../sdk/index.js';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        secret TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        delivered_at INTEGER
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
      CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, status);
    `,
  },
];

export interface WebhookRow {
  id: string;
  url: string;
  events: string;
  secret: string;
  created_at: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface DeliveryCounts {
  pending: number;
  delivered: number;
  dead: number;
  last_error: string | null;
}

/** Deliveries attempted per run of the delivery job. */
const BATCH = 32;

export class WebhookStore {
  readonly #insertHook: Statement;
  readonly #hooks: Statement;
  readonly #hook: Statement;
  readonly #removeHook: Statement;
  readonly #insertDelivery: Statement;
  readonly #delivery: Statement;
  readonly #due: Statement;
  readonly #nextDue: Statement;
  readonly #update: Statement;
  readonly #counts: Statement;
  readonly #lastError: Statement;
  readonly #prune: Statement;
  /** The webhooks as committed: every payment that ends, on both sides, asks which of them want its event. */
  readonly #kept: ReadCache;

  constructor(db: Database) {
    this.#kept = new ReadCache(db);
    this.#insertHook = db.prepare('INSERT INTO webhooks (id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?)');
    this.#hooks = db.prepare('SELECT * FROM webhooks ORDER BY created_at, id');
    this.#hook = db.prepare('SELECT * FROM webhooks WHERE id = ?');
    this.#removeHook = db.prepare('DELETE FROM webhooks WHERE id = ?');
    this.#insertDelivery = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event, body, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
    );
    this.#delivery = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
    this.#due = db.prepare(`SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ${BATCH}`);
    this.#nextDue = db.prepare(`SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'`);
    this.#update = db.prepare('UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_error = ?, delivered_at = ? WHERE id = ?');
    this.#counts = db.prepare('SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ? GROUP BY status');
    this.#lastError = db.prepare(
      `SELECT last_error FROM webhook_deliveries WHERE webhook_id = ? AND last_error IS NOT NULL AND status != 'delivered' ORDER BY created_at DESC LIMIT 1`,
    );
    this.#prune = db.prepare(`DELETE FROM webhook_deliveries WHERE status = 'delivered' AND delivered_at < ?`);
  }

  /**
   * Forgets deliveries delivered before `before` (ms): their only use was the counts. Pending ones are still owed and
   * dead ones wait in the dead letter queue, whose retry needs the row.
   */
  prune(before: number): number {
    return this.#prune.run(before).changes;
  }

  addHook(row: WebhookRow): void {
    this.#kept.written();
    this.#insertHook.run(row.id, row.url, row.events, row.secret, row.created_at);
  }

  /** Kept between writes, so shared by every caller: frozen. */
  hooks(): readonly Readonly<WebhookRow>[] {
    return this.#kept.read('hooks', () => Object.freeze((this.#hooks.all() as WebhookRow[]).map((r) => Object.freeze(r))));
  }

  /** The webhooks subscribed to `event`, kept as `hooks` is: a payment's end asks this on both sides. */
  subscribers(event: string): readonly Readonly<WebhookRow>[] {
    return this.#kept.read(`event ${event}`, () => Object.freeze(this.hooks().filter((h) => (JSON.parse(h.events) as string[]).includes(event))));
  }

  hook(id: string): WebhookRow | null {
    return (this.#hook.get(id) as WebhookRow | undefined) ?? null;
  }

  /** Removes a subscription and the deliveries it still owed. */
  removeHook(id: string): boolean {
    this.#kept.written();
    return this.#removeHook.run(id).changes > 0;
  }

  addDelivery(id: string, webhookId: string, event: string, body: string, now: number, dueAt: number): void {
    this.#insertDelivery.run(id, webhookId, event, body, dueAt, now);
  }

  delivery(id: string): DeliveryRow | null {
    return (this.#delivery.get(id) as DeliveryRow | undefined) ?? null;
  }

  due(now: number): DeliveryRow[] {
    return this.#due.all(now) as DeliveryRow[];
  }

  /** When the earliest pending delivery is due, or null when none is pending. */
  nextDue(): number | null {
    return (this.#nextDue.get() as { at: number | null }).at;
  }

  update(id: string, status: DeliveryStatus, attempts: number, nextAttemptAt: number, lastError: string | null, deliveredAt: number | null): void {
    this.#update.run(status, attempts, nextAttemptAt, lastError, deliveredAt, id);
  }

  counts(webhookId: string): DeliveryCounts {
    const counts: DeliveryCounts = { pending: 0, delivered: 0, dead: 0, last_error: null };
    for (const r of this.#counts.all(webhookId) as { status: DeliveryStatus; n: number }[]) counts[r.status] = r.n;
    counts.last_error = (this.#lastError.get(webhookId) as { last_error: string } | undefined)?.last_error ?? null;
    return counts;
  }
}
