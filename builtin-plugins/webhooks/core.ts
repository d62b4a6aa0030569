/**
 * Subscriptions and deliveries. An event owed to a webhook is a row written in one transaction with the others of
 * the same event, then the delivery job is kicked: it posts the row's body, signed afresh at each attempt, and on a
 * failure (no connection, timeout, a non-2xx answer, a target the edge rule refuses) tries again after the node's
 * outbox backoff (2, 4, 8, 16 s); after MAX_ATTEMPTS the row is dead and parked in the kernel's dead letter queue,
 * from where `dlq retry` posts it once more.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiError, OutboundError, PeerDeliveryError, type DeadLetterOutcome, type PluginContext, type QueuedPeerMessage } from '../../sdk/index.js';
import { decryptAtRest, encryptAtRest } from '../../sdk/crypto.js';
import { resolvesToPublic } from '../../sdk/public-host.js';
import { backoffMs } from '../../sdk/retry.js';
import { SIGNATURE_HEADER, TEST_EVENT, WEBHOOK_EVENTS, webhookSignature } from './api.js';
import { PRIVATE_TARGETS_SETTING } from './settings.js';
import type { DeliveryCounts, DeliveryRow, WebhookRow, WebhookStore } from './store.js';

/** Attempts before a delivery goes to the dead letter queue (as many as the outbox makes). */
export const MAX_ATTEMPTS = 5;
/** The dead letter queue's type of a webhook delivery. */
export const DLQ_TYPE = 'webhook.delivery';
/** Its label there (the `message_type` an operator sees). */
export const DLQ_LABEL = 'webhook';
export const DELIVER_JOB = 'deliver';

const CONNECT_TIMEOUT_MS = 5_000;
const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 16 * 1024;
const KEY_LABEL = 'webhooks';

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  created_at: string;
  deliveries: DeliveryCounts;
}

export interface DeliveryView {
  id: string;
  event: string;
  status: DeliveryRow['status'];
  attempts: number;
  last_error: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isOnion = (url: URL): boolean => url.hostname.endsWith('.onion');

export class WebhooksCore {
  readonly #key: Buffer;

  constructor(
    readonly ctx: PluginContext,
    readonly store: WebhookStore,
  ) {
    this.#key = ctx.identity.storageKey(KEY_LABEL);
  }

  /** Adds a subscription; the secret is generated when not given and returned only here. */
  async add(input: { url: string; events: readonly string[]; secret?: string }): Promise<WebhookView & { secret: string }> {
    const url = targetUrl(input.url);
    const unknown = input.events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
    if (unknown.length) throw new ApiError('invalid_events', 400, `Unknown event(s): ${unknown.join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')}`, { field: 'events' });
    const refusal = await this.#refusal(url.href);
    if (refusal) throw new ApiError('webhook_target_refused', 400, refusal, { field: 'url' });
    const secret = input.secret ?? randomBytes(32).toString('base64url');
    const row: WebhookRow = {
      id: randomUUID(),
      url: url.href,
      events: JSON.stringify([...new Set(input.events)]),
      secret: '',
      created_at: this.ctx.clock.now(),
    };
    row.secret = encryptAtRest(this.#key, secret, row.id);
    this.ctx.db.tx(() => this.store.addHook(row));
    this.ctx.log.info('webhook added', { id: row.id, url: row.url, events: row.events });
    return { ...this.view(row), secret };
  }

  list(): WebhookView[] {
    return this.store.hooks().map((r) => this.view(r));
  }

  remove(id: string): void {
    if (!this.ctx.db.tx(() => this.store.removeHook(id))) throw new ApiError('webhook_not_found', 404, `No webhook with id ${id}`);
    this.ctx.log.info('webhook removed', { id });
  }

  view(row: WebhookRow): WebhookView {
    return { id: row.id, url: row.url, events: JSON.parse(row.events) as string[], created_at: iso(row.created_at), deliveries: this.store.counts(row.id) };
  }

  /** Whether any webhook is subscribed to `event`. */
  wants(event: string): boolean {
    return this.store.subscribers(event).length > 0;
  }

  /** Owes `event` to every webhook subscribed to it; delivery starts once the rows are committed. */
  emit(event: string, data: Record<string, unknown>): void {
    const hooks = this.store.subscribers(event);
    if (hooks.length === 0) return;
    this.ctx.db.tx(() => {
      for (const h of hooks) this.#owe(h.id, event, data);
      this.ctx.db.afterCommit(() => this.ctx.jobs.kick(DELIVER_JOB));
    });
  }

  /** Sends a `webhook.test` event to one webhook now and reports the first attempt (a failure is retried as usual). */
  async test(id: string): Promise<DeliveryView> {
    const hook = this.store.hook(id);
    if (!hook) throw new ApiError('webhook_not_found', 404, `No webhook with id ${id}`);
    // Not due for the job while this attempt runs (the job would post it a second time); a failure reschedules it.
    const deliveryId = this.ctx.db.tx(() => this.#owe(hook.id, TEST_EVENT, { webhook_id: hook.id }, this.ctx.clock.now() + TIMEOUT_MS + CONNECT_TIMEOUT_MS));
    await this.#attempt(this.store.delivery(deliveryId)!);
    this.ctx.jobs.reschedule(DELIVER_JOB);
    const d = this.store.delivery(deliveryId)!;
    return { id: d.id, event: d.event, status: d.status, attempts: d.attempts, last_error: d.last_error };
  }

  /** The delivery job: every pending delivery that is due, until none is. */
  async deliverDue(): Promise<void> {
    for (let due = this.store.due(this.ctx.clock.now()); due.length > 0; due = this.store.due(this.ctx.clock.now())) {
      await Promise.all(due.map((d) => this.#attempt(d)));
    }
  }

  /** The operator's retry of a dead delivery (`dlq retry`): one more attempt, answered once the receiver answered. */
  async retryDead(message: QueuedPeerMessage): Promise<DeadLetterOutcome> {
    const d = this.store.delivery(message.id);
    const hook = d ? this.store.hook(d.webhook_id) : null;
    if (!d || !hook) return { ok: false, refusal: 'webhook_removed' };
    if (d.status === 'delivered') return { ok: true };
    const failure = await this.#post(hook, d);
    const now = this.ctx.clock.now();
    this.ctx.db.tx(() => this.store.update(d.id, failure ? 'dead' : 'delivered', d.attempts + 1, now, failure, failure ? null : now));
    if (failure) throw new PeerDeliveryError('webhook_unreachable', failure);
    return { ok: true };
  }

  #owe(webhookId: string, event: string, data: Record<string, unknown>, dueAt?: number): string {
    const id = randomUUID();
    const now = this.ctx.clock.now();
    this.store.addDelivery(id, webhookId, event, JSON.stringify({ id, event, created_at: iso(now), data }), now, dueAt ?? now);
    return id;
  }

  async #attempt(d: DeliveryRow): Promise<void> {
    const hook = this.store.hook(d.webhook_id);
    if (!hook) return;
    const failure = await this.#post(hook, d);
    const attempts = d.attempts + 1;
    const now = this.ctx.clock.now();
    this.ctx.db.tx(() => {
      if (this.store.delivery(d.id)?.status !== 'pending') return;
      if (!failure) return this.store.update(d.id, 'delivered', attempts, now, null, now);
      if (attempts < MAX_ATTEMPTS) return this.store.update(d.id, 'pending', attempts, now + backoffMs(attempts), failure, null);
      this.store.update(d.id, 'dead', attempts, now, failure, null);
      this.ctx.peer.deadLetter({
        messageId: d.id,
        type: DLQ_TYPE,
        target: { addresses: { [new URL(hook.url).protocol === 'https:' ? 'https' : 'http']: hook.url } },
        payload: { type: DLQ_TYPE, webhook_id: hook.id, event: d.event },
        attempts,
        reason: failure,
      });
      this.ctx.log.warn('webhook delivery dead-lettered', { id: d.id, webhook_id: hook.id, event: d.event, reason: failure });
    });
  }

  /** Posts a delivery once: null when the receiver answered 2xx, else why not. */
  async #post(hook: WebhookRow, d: DeliveryRow): Promise<string | null> {
    const refusal = await this.#refusal(hook.url);
    if (refusal) return refusal;
    const secret = decryptAtRest(this.#key, hook.secret, hook.id).toString('utf8');
    const t = Math.floor(this.ctx.clock.now() / 1000);
    try {
      const res = await this.ctx.kernel.outbound.request({
        method: 'POST',
        url: hook.url,
        headers: {
          'Content-Type': 'application/json',
          [SIGNATURE_HEADER]: webhookSignature(secret, t, d.body),
          'X-Webhook-Id': d.id,
          'X-Webhook-Event': d.event,
        },
        body: d.body,
        viaTor: isOnion(new URL(hook.url)),
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        timeoutMs: TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
      return res.status >= 200 && res.status < 300 ? null : `the receiver answered HTTP ${res.status}`;
    } catch (err) {
      return err instanceof OutboundError ? `${err.code}: ${err.message}` : String(err);
    }
  }

  /** Why the edge rule refuses a target now (resolved again at each attempt: a name may move), or null. */
  async #refusal(href: string): Promise<string | null> {
    const url = new URL(href);
    if (isOnion(url) || this.ctx.settings.get<boolean>(PRIVATE_TARGETS_SETTING)) return null;
    if (await resolvesToPublic(url.hostname)) return null;
    return `${url.hostname} is a loopback, private or link-local address, or does not resolve; set webhooks_private_targets_allowed to allow it`;
  }
}

function targetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('invalid_url', 400, 'url must be an absolute http or https URL', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError('invalid_url', 400, 'url must use http or https', { field: 'url' });
  if (url.username || url.password) throw new ApiError('invalid_url', 400, 'url must not carry credentials: the signature authenticates the node', { field: 'url' });
  return url;
}
