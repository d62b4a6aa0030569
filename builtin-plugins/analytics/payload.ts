/**
 * The two payloads of Document 2 ("Analytics payloads"), field for field, and how they are written on the wire.
 * Nothing here reads the node: the callers hand in the anonymous id, the version, the time and the aggregates.
 */
import { createHmac } from 'node:crypto';
import { utcStamp } from './schedule.js';

export const EVENTS = { setup: 'node_setup', heartbeat: 'usage_heartbeat' } as const;

export interface CurrencyVolume {
  currency: string;
  sent_count: number;
  sent_whole: bigint;
  sent_frac: number;
  received_count: number;
  received_whole: bigint;
  received_frac: number;
  relay_count: number;
  relay_whole: bigint;
  relay_frac: number;
}

export interface HeartbeatMetrics {
  tx_sent_count: number;
  tx_received_count: number;
  tx_p2p_count: number;
  tx_contact_count: number;
  contact_count: number;
  days_active: number;
  volume_by_currency: CurrencyVolume[];
}

export interface NodeSetupPayload {
  event: typeof EVENTS.setup;
  analytics_id: string;
  version: string;
  timestamp: string;
}

export interface HeartbeatPayload {
  event: typeof EVENTS.heartbeat;
  analytics_id: string;
  version: string;
  timestamp: string;
  period_days: number;
  metrics: HeartbeatMetrics;
}

/**
 * The anonymous id: HMAC-SHA256 of the public key hash, first 32 hex characters. The key comes from the node's
 * seed, not from a published constant: the same mnemonic gives the same id after a restore, yet nobody who knows
 * the node's public key hash (every contact does) can compute the id and pick the node out of the reports.
 */
export function anonymousId(seedKey: Uint8Array, pubkeyHash: string): string {
  return createHmac('sha256', seedKey).update(pubkeyHash).digest('hex').slice(0, 32);
}

export function nodeSetup(analyticsId: string, version: string, now: number): NodeSetupPayload {
  return { event: EVENTS.setup, analytics_id: analyticsId, version, timestamp: utcStamp(now) };
}

export function heartbeat(analyticsId: string, version: string, now: number, periodDays: number, metrics: HeartbeatMetrics): HeartbeatPayload {
  return { event: EVENTS.heartbeat, analytics_id: analyticsId, version, timestamp: utcStamp(now), period_days: periodDays, metrics };
}

const BIG = '\u0000';

/**
 * JSON with every bigint written as an integer, digit for digit: a total of whole units may pass 2^53, where a JS
 * number would round it. (Node 20 has no JSON.rawJSON.)
 */
export function toJson(payload: unknown): string {
  return JSON.stringify(payload, (_key, value: unknown) => (typeof value === 'bigint' ? `${BIG}${value}${BIG}` : value)).replace(
    /"\\u0000(-?\d+)\\u0000"/g,
    '$1',
  );
}
