/**
 * The kernel's metrics registry: families keep their values when their owner registers them again (an in-process
 * restart), a name belongs to one owner, label sets past a family's cap collapse to `_other`, and a gauge whose reader
 * fails is left empty without taking the scrape down.
 */
import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../kernel/metrics.js';
import { sample } from '../support/metrics.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const text = async (r: MetricsRegistry): Promise<string> => (await r.exposition()).body;

describe('metrics registry', () => {
  it('a counter registered again by its owner keeps counting; its gauges go with the owner', async () => {
    const r = new MetricsRegistry(quiet);
    const first = r.forOwner('shop');
    first.counter({ name: 'orders_total', help: 'orders', labels: ['kind'] }).inc({ kind: 'a' }, 2);
    first.gauge({ name: 'queue', help: 'queue' }, () => [{ value: 7 }]);
    r.releaseOwner('shop');
    expect(await text(r)).not.toMatch(/wallet_node_queue/);
    const again = r.forOwner('shop');
    again.counter({ name: 'orders_total', help: 'orders', labels: ['kind'] }).inc({ kind: 'a' });
    again.gauge({ name: 'queue', help: 'queue' }, () => [{ value: 3 }]);
    const t = await text(r);
    expect(sample(t, 'wallet_node_orders_total', { kind: 'a' })).toBe(3);
    expect(sample(t, 'wallet_node_queue')).toBe(3);
  });

  it('refuses a name another owner holds, other labels for the same name, and names that are not snake_case', () => {
    const r = new MetricsRegistry(quiet);
    r.forOwner('a').counter({ name: 'x_total', help: 'x', labels: ['l'] });
    expect(() => r.forOwner('b').counter({ name: 'x_total', help: 'x', labels: ['l'] })).toThrow(/already registered by a/);
    expect(() => r.forOwner('a').counter({ name: 'x_total', help: 'x', labels: ['m'] })).toThrow(/other labels or type/);
    expect(() => r.forOwner('a').counter({ name: 'Bad-Name', help: 'x' })).toThrow(/snake_case/);
  });

  it('past maxSeries a new label set is counted under _other; a gauge keeps its first maxSeries samples', async () => {
    const r = new MetricsRegistry(quiet);
    const m = r.forOwner('p');
    const c = m.counter({ name: 'hits_total', help: 'hits', labels: ['who'], maxSeries: 2 });
    for (const who of ['a', 'b', 'c', 'd', 'a']) c.inc({ who });
    m.gauge({ name: 'top', help: 'top', labels: ['who'], maxSeries: 2 }, () => ['x', 'y', 'z'].map((who, i) => ({ labels: { who }, value: 3 - i })));
    const t = await text(r);
    expect([sample(t, 'wallet_node_hits_total', { who: 'a' }), sample(t, 'wallet_node_hits_total', { who: 'b' }), sample(t, 'wallet_node_hits_total', { who: '_other' })]).toEqual([2, 1, 2]);
    expect(t).not.toMatch(/who="z"/);
    expect(sample(t, 'wallet_node_top', { who: 'y' })).toBe(2);
  });

  it('label sets that spell alike when joined stay apart; a missing label is the empty one; each update reaches its series', async () => {
    const r = new MetricsRegistry(quiet);
    const h = r.forOwner('p').histogram({ name: 'took_seconds', help: 'took', labels: ['a', 'b'], buckets: [1], maxSeries: 4 });
    for (const [labels, v] of [[{ a: 'x:1', b: 'y' }, 0.5], [{ a: 'x', b: '1:y' }, 2], [{ a: 'x:1', b: 'y' }, 0.25], [{ a: 'x' }, 3]] as const) h.observe(labels, v);
    const t = await text(r);
    expect(sample(t, 'wallet_node_took_seconds_count', { a: 'x:1', b: 'y' })).toBe(2);
    expect(sample(t, 'wallet_node_took_seconds_sum', { a: 'x:1', b: 'y' })).toBe(0.75);
    expect(sample(t, 'wallet_node_took_seconds_sum', { a: 'x', b: '1:y' })).toBe(2);
    expect(sample(t, 'wallet_node_took_seconds_sum', { a: 'x', b: '' })).toBe(3);
  });

  it('a gauge whose reader throws is served empty, and the rest of the scrape is served', async () => {
    const r = new MetricsRegistry(quiet);
    const m = r.forOwner('p');
    m.gauge({ name: 'broken', help: 'broken' }, () => {
      throw new Error('store closed');
    });
    m.counter({ name: 'fine_total', help: 'fine' }).inc();
    const t = await text(r);
    expect(sample(t, 'wallet_node_fine_total')).toBe(1);
    expect(t).not.toMatch(/^wallet_node_broken /m);
    expect(t).toMatch(/^process_cpu_user_seconds_total /m);
  });
});
