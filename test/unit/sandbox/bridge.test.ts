import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../sdk/index.js';
import { MAX_EVENT_BYTES, SandboxBridge } from '../../../kernel/plugins/sandbox/bridge.js';

function bridgeWithLog(): { bridge: SandboxBridge; warnings: string[] } {
  const warnings: string[] = [];
  const log: Logger = { debug: () => undefined, info: () => undefined, warn: (m) => void warnings.push(m), error: () => undefined };
  return { bridge: new SandboxBridge(log), warnings };
}

describe('the public events of the sandbox bridge', () => {
  it('delivers an event to its own subscribers only, serialised once', () => {
    const { bridge } = bridgeWithLog();
    const paid: string[] = [];
    const other: string[] = [];
    bridge.listen('payment.received', (json) => paid.push(json));
    bridge.listen('payment.received', (json) => paid.push(json));
    bridge.listen('shop.order_paid', (json) => other.push(json));
    bridge.publish('payment.received', { txid: 'a', amount: '1.00' });
    expect(paid).toEqual(['{"txid":"a","amount":"1.00"}', '{"txid":"a","amount":"1.00"}']);
    expect(other).toEqual([]);
  });

  it('says whether an event has a subscriber, until the last one leaves', () => {
    const { bridge } = bridgeWithLog();
    expect(bridge.subscribed('payment.received')).toBe(false);
    const first = bridge.listen('payment.received', () => undefined);
    const second = bridge.listen('payment.received', () => undefined);
    expect(bridge.subscribed('payment.received')).toBe(true);
    expect(bridge.forOwner('plugin-gateway').subscribed('payment.received')).toBe(true);
    first();
    expect(bridge.subscribed('payment.received')).toBe(true);
    second();
    expect(bridge.subscribed('payment.received')).toBe(false);
    // Leaving twice changes nothing, and a later subscriber is heard again.
    second();
    const heard: string[] = [];
    bridge.listen('payment.received', (json) => heard.push(json));
    bridge.publish('payment.received', { txid: 'b' });
    expect(heard).toEqual(['{"txid":"b"}']);
  });

  it('builds nothing for an event nobody subscribes to, and still refuses a bad name', () => {
    const { bridge, warnings } = bridgeWithLog();
    const big = { blob: 'x'.repeat(MAX_EVENT_BYTES + 1) };
    bridge.publish('payment.received', big);
    expect(warnings).toEqual([]);
    bridge.listen('payment.received', () => undefined);
    bridge.publish('payment.received', big);
    expect(warnings).toEqual(['public event dropped: its payload is not JSON of at most 16 KiB']);
    expect(() => bridge.publish('Not An Event', {})).toThrow(/names match/);
  });
});
