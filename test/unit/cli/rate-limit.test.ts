import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinCliRateLimits } from '../../../builtin-plugins/cli-commands.js';
import { DEFAULT_RATE_RULE, RateStore, consume, emptyBucket, isLive, type BucketState } from '../../../kernel/cli/rate-limit.js';

const rule = { max: 3, windowSeconds: 60, blockSeconds: 300 };

/** Runs `n` uses at the given times, threading the state through. */
function run(times: number[], r = rule, start?: BucketState) {
  let state = start;
  const results: Array<boolean | number> = [];
  for (const t of times) {
    const d = consume(state, r, t);
    state = d.state;
    results.push(d.allowed ? true : d.retryAfterSeconds);
  }
  return { results, state: state! };
}

describe('CLI rate bucket', () => {
  it('allows max uses per window, then blocks for the block time', () => {
    const { results, state } = run([0, 1_000, 2_000, 3_000]);
    expect(results).toEqual([true, true, true, 300]);
    expect(state.blocked_until).toBe(3_000 + 300_000);
  });

  it('stays blocked until the block time ends, even after the window has passed', () => {
    const { state } = run([0, 1, 2, 3]);
    // blocked at t=3 until 300_003
    expect(consume(state, rule, 61_000)).toMatchObject({ allowed: false, retryAfterSeconds: 240 });
    expect(consume(state, rule, 300_002)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(consume(state, rule, 300_003).allowed).toBe(true);
  });

  it('slides the window: uses older than the window no longer count', () => {
    const { results } = run([0, 10_000, 20_000, 60_000, 70_000, 80_000]);
    expect(results).toEqual([true, true, true, true, true, true]);
  });

  it('counts a use exactly one window old as expired', () => {
    const { results } = run([0, 0, 0, 60_000]);
    expect(results).toEqual([true, true, true, true]);
  });

  it('without a block time, tells when the oldest use leaves the window', () => {
    const noBlock = { max: 2, windowSeconds: 60, blockSeconds: 0 };
    const { results, state } = run([0, 30_000, 45_000], noBlock);
    expect(results).toEqual([true, true, 15]);
    expect(state.blocked_until).toBeNull();
    expect(consume(state, noBlock, 60_000).allowed).toBe(true);
  });

  it('ignores hits from the future (a clock set back) instead of blocking forever', () => {
    const { results } = run([1_000], rule, { hits: [10_000_000, 10_000_001, 10_000_002], blocked_until: null });
    expect(results).toEqual([true]);
  });

  it('knows when a state no longer matters', () => {
    expect(isLive(emptyBucket(), rule, 0)).toBe(false);
    expect(isLive({ hits: [0], blocked_until: null }, rule, 59_999)).toBe(true);
    expect(isLive({ hits: [0], blocked_until: null }, rule, 60_000)).toBe(false);
    expect(isLive({ hits: [], blocked_until: 500_000 }, rule, 400_000)).toBe(true);
  });

  it('carries the limits of Document 2', () => {
    expect(DEFAULT_RATE_RULE).toEqual({ max: 100, windowSeconds: 60, blockSeconds: 300 });
    expect(builtinCliRateLimits.send).toEqual({ max: 30, windowSeconds: 60, blockSeconds: 300 });
    expect(builtinCliRateLimits.contact).toEqual({ max: 20, windowSeconds: 60, blockSeconds: 300 });
    expect(builtinCliRateLimits.generate).toEqual({ max: 5, windowSeconds: 300, blockSeconds: 900 });
    for (const b of ['backup', 'chaindrop', 'report']) expect(builtinCliRateLimits[b]).toEqual({ max: 10, windowSeconds: 60, blockSeconds: 300 });
    expect(builtinCliRateLimits.p2p).toEqual({ max: 30, windowSeconds: 60, blockSeconds: 300 });
    expect(builtinCliRateLimits.request).toEqual({ max: 20, windowSeconds: 60, blockSeconds: 300 });
    expect(builtinCliRateLimits.refund).toEqual({ max: 20, windowSeconds: 60, blockSeconds: 0 });
  });
});

describe('CLI rate store (cli-rate.json)', () => {
  const dirs: string[] = [];
  const tempFile = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-rate-'));
    dirs.push(dir);
    return join(dir, 'cli-rate.json');
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('persists counts across store instances (consecutive runs), per node and bucket, mode 600', async () => {
    const file = tempFile();
    let now = 1_000_000;
    const clock = () => now;
    const rules = () => rule;
    for (let i = 0; i < 3; i++) {
      const d = await new RateStore(file, clock).consume('node-a', 'send', rule, rules);
      expect(d.allowed).toBe(true);
      now += 1000;
    }
    const over = await new RateStore(file, clock).consume('node-a', 'send', rule, rules);
    expect(over).toMatchObject({ allowed: false, retryAfterSeconds: 300 });
    // another bucket and another node count separately
    expect((await new RateStore(file, clock).consume('node-a', 'info', rule, rules)).allowed).toBe(true);
    expect((await new RateStore(file, clock).consume('node-b', 'send', rule, rules)).allowed).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.buckets['node-a'].send.blocked_until).toBe(now + 300_000);
    // after the block, the bucket is usable again
    now += 300_001;
    expect((await new RateStore(file, clock).consume('node-a', 'send', rule, rules)).allowed).toBe(true);
  });

  it('drops expired buckets so the file stays small', async () => {
    const file = tempFile();
    let now = 0;
    const store = new RateStore(file, () => now);
    await store.consume('n', 'a', rule, () => rule);
    now = 120_000;
    await store.consume('n', 'b', rule, () => rule);
    expect(Object.keys(store.read().buckets.n!)).toEqual(['b']);
  });

  it('remembers the node id of a key', async () => {
    const store = new RateStore(tempFile());
    expect(store.knownNode('k1')).toBeNull();
    await store.rememberNode('k1', 'abc');
    expect(new RateStore(store.file).knownNode('k1')).toBe('abc');
  });

  it('counts every use when runs race', async () => {
    const file = tempFile();
    const big = { max: 1000, windowSeconds: 60, blockSeconds: 300 };
    await Promise.all(Array.from({ length: 20 }, () => new RateStore(file).consume('n', 'x', big, () => big)));
    expect(new RateStore(file).read().buckets.n!.x!.hits).toHaveLength(20);
  });

  it('starts over from a damaged file', async () => {
    const file = tempFile();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, '{not json');
    expect((await new RateStore(file).consume('n', 'x', rule, () => rule)).allowed).toBe(true);
  });
});
