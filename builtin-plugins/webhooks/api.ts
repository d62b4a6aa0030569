/**
 * What the webhooks plugin sends, for other plugins and for receivers written in TypeScript: the event names and
 * the signature scheme (docs/api/webhooks.md). The plugin provides no service: it listens to the events the other
 * plugins publish on the bus, so a plugin that wants its own webhook event publishes a bus event and names it here.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENTS = [
  'payment.received',
  'payment.sent',
  'payment.failed',
  'payment_request.received',
  'route.awaiting_approval',
  'contact.request',
  'line.threshold',
  'dead_letter.added',
  'clearing.done',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event `node-cli webhook test` sends, whatever the webhook subscribed to. */
export const TEST_EVENT = 'webhook.test';

/** The header carrying the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export const SIGNATURE_HEADER = 'X-Webhook-Signature';

export function webhookSignature(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Whether `header` signs `body` with `secret` and its time is within `toleranceSeconds` of `nowSeconds` (a receiver
 * refuses older signatures so a captured delivery cannot be replayed later).
 */
export function verifyWebhookSignature(secret: string, header: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, t, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
