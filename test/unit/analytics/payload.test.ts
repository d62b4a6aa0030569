import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { volumes } from '../../../builtin-plugins/analytics/metrics.js';
import { anonymousId, heartbeat, nodeSetup, toJson } from '../../../builtin-plugins/analytics/payload.js';

const HASH = 'a'.repeat(64);

describe('analytics payloads', () => {
  it('derives the anonymous id as HMAC-SHA256 of the public key hash, 32 hex chars, keyed by the node secret', () => {
    const key = Buffer.alloc(32, 7);
    const id = anonymousId(key, HASH);
    expect(id).toBe(createHmac('sha256', key).update(HASH).digest('hex').slice(0, 32));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(anonymousId(key, HASH)).toBe(id);
    expect(anonymousId(Buffer.alloc(32, 8), HASH)).not.toBe(id);
    expect(id).not.toContain(HASH.slice(0, 8));
  });

  it('holds exactly the fields of Document 2', () => {
    const now = Date.parse('2025-01-02T03:04:05.678Z');
    expect(nodeSetup('id', '1.2.3', now)).toEqual({ event: 'node_setup', analytics_id: 'id', version: '1.2.3', timestamp: '2025-01-02T03:04:05Z' });
    const metrics = { tx_sent_count: 1, tx_received_count: 0, tx_p2p_count: 0, tx_contact_count: 0, contact_count: 0, days_active: 1, volume_by_currency: [] };
    expect(Object.keys(heartbeat('id', '1.2.3', now, 3, metrics))).toEqual(['event', 'analytics_id', 'version', 'timestamp', 'period_days', 'metrics']);
  });

  it('writes bigint totals digit for digit', () => {
    expect(toJson({ a: 12345678901234567890n, b: [0n, -3n], c: 'x', d: 1.5 })).toBe('{"a":12345678901234567890,"b":[0,-3],"c":"x","d":1.5}');
  });

  it('sums volumes per currency case-insensitively, carrying fractions, and withholds the sum of a single payment', () => {
    const rows = volumes([
      { currency: 'VWL', type: 'sent', count: 2, amount: 160_000_000n },
      { currency: 'vwl', type: 'sent', count: 1, amount: 70_000_000n },
      { currency: 'VWL', type: 'received', count: 1, amount: 5n },
      { currency: 'Hours', type: 'relay', count: 3, amount: 300_000_001n },
    ]);
    expect(rows).toEqual([
      { currency: 'Hours', sent_count: 0, sent_whole: 0n, sent_frac: 0, received_count: 0, received_whole: 0n, received_frac: 0, relay_count: 3, relay_whole: 3n, relay_frac: 1 },
      { currency: 'VWL', sent_count: 3, sent_whole: 2n, sent_frac: 30_000_000, received_count: 1, received_whole: 0n, received_frac: 0, relay_count: 0, relay_whole: 0n, relay_frac: 0 },
    ]);
  });
});
