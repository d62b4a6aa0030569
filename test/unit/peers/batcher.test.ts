import { describe, expect, it } from 'vitest';
import { MessageBatcher, type PostExchange } from '../../../kernel/peers/batcher.js';

const A = { http: 'http://127.0.0.1:1' };
const B = { http: 'http://127.0.0.1:2' };

/** Records every exchange and answers each envelope (or each element of a batch) with its text echoed back. */
function recorder(answer?: (body: string) => { status: number; body: string }): { calls: { address: string; body: string }[]; exchange: PostExchange } {
  const calls: { address: string; body: string }[] = [];
  const exchange: PostExchange = async (addresses, body) => {
    calls.push({ address: addresses.http!, body });
    if (answer) return { ...answer(body), address: addresses.http! };
    const parsed = JSON.parse(body) as unknown;
    const out = Array.isArray(parsed) ? parsed.map((e) => ({ status: 200, body: { echo: e } })) : { echo: parsed };
    return { status: 200, body: JSON.stringify(out), address: addresses.http! };
  };
  return { calls, exchange };
}

describe('MessageBatcher', () => {
  it('sends a lone message as a plain envelope', async () => {
    const { calls, exchange } = recorder();
    const answer = await new MessageBatcher(exchange).post(A, '{"n":1}');
    expect(calls).toEqual([{ address: A.http, body: '{"n":1}' }]);
    expect(answer).toEqual({ status: 200, body: { echo: { n: 1 } }, address: A.http });
  });

  it('coalesces messages posted in the same turn per peer, in batches of at most 8, each with its own answer', async () => {
    const { calls, exchange } = recorder();
    const batcher = new MessageBatcher(exchange);
    const toA = Array.from({ length: 10 }, (_, n) => batcher.post(A, JSON.stringify({ n })));
    const toB = [batcher.post(B, '{"n":100}'), batcher.post(B, '{"n":101}')];
    const answers = await Promise.all([...toA, ...toB]);
    expect(calls.map((c) => [c.address, JSON.parse(c.body)])).toEqual([
      [A.http, Array.from({ length: 8 }, (_, n) => ({ n }))],
      [A.http, [{ n: 8 }, { n: 9 }]],
      [B.http, [{ n: 100 }, { n: 101 }]],
    ]);
    expect(answers.map((a) => (a.body as { echo: { n: number } }).echo.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101]);
  });

  it('a quiet batcher sends as soon as the posting code is done, ahead of the work queued for the end of the turn', async () => {
    const order: string[] = [];
    const { exchange } = recorder();
    const batcher = new MessageBatcher(async (addresses, body) => {
      order.push('exchange');
      return exchange(addresses, body);
    });
    setImmediate(() => order.push('end of turn'));
    await batcher.post(A, '{"n":1}');
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['exchange', 'end of turn']);
  });

  it('while an exchange is in flight, what later callbacks post waits for the end of their turn and leaves together', async () => {
    const { calls, exchange } = recorder();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const batcher = new MessageBatcher(async (addresses, body) => {
      if (calls.length === 0) {
        calls.push({ address: addresses.http!, body });
        await gate;
        return { status: 200, body: '{}', address: addresses.http! };
      }
      return exchange(addresses, body);
    });
    const first = batcher.post(A, '{"n":0}');
    await new Promise((r) => setImmediate(r));
    const later = await new Promise<Promise<unknown>[]>((resolve) => {
      const posted: Promise<unknown>[] = [];
      setImmediate(() => posted.push(batcher.post(A, '{"n":1}')));
      setImmediate(() => {
        posted.push(batcher.post(A, '{"n":2}'));
        resolve(posted);
      });
    });
    await Promise.all(later);
    release();
    await first;
    expect(calls.map((c) => JSON.parse(c.body))).toEqual([{ n: 0 }, [{ n: 1 }, { n: 2 }]]);
  });

  it('gives each message of a batch the status of its own result', async () => {
    const { exchange } = recorder(() => ({
      status: 200,
      body: JSON.stringify([{ status: 200, body: { ok: 1 } }, { status: 409, body: { error: { code: 'replay', message: 'seen' } } }]),
    }));
    const batcher = new MessageBatcher(exchange);
    const [first, second] = await Promise.all([batcher.post(A, '{}'), batcher.post(A, '{}')]);
    expect(first).toEqual({ status: 200, body: { ok: 1 }, address: A.http });
    expect(second).toEqual({ status: 409, body: { error: { code: 'replay', message: 'seen' } }, address: A.http });
  });

  it('answers every message of a batch the peer refused as a whole with that refusal', async () => {
    const { exchange } = recorder(() => ({ status: 413, body: '{"error":{"code":"payload_too_large","message":"big"}}' }));
    const batcher = new MessageBatcher(exchange);
    const answers = await Promise.all([batcher.post(A, '{}'), batcher.post(A, '{}')]);
    for (const a of answers) expect(a).toEqual({ status: 413, body: { error: { code: 'payload_too_large', message: 'big' } }, address: A.http });
  });

  it('answers a message the batch answer leaves out with a retryable invalid_reply', async () => {
    const { exchange } = recorder(() => ({ status: 200, body: JSON.stringify([{ status: 200, body: {} }]) }));
    const batcher = new MessageBatcher(exchange);
    const [, missing] = await Promise.all([batcher.post(A, '{}'), batcher.post(A, '{}')]);
    expect(missing.status).toBe(502);
    expect(missing.body).toMatchObject({ error: { code: 'invalid_reply' } });
  });

  it('rejects every message of a batch whose exchange failed', async () => {
    const failing: PostExchange = async () => {
      throw new Error('connection refused');
    };
    const batcher = new MessageBatcher(failing);
    const results = await Promise.allSettled([batcher.post(A, '{}'), batcher.post(A, '{}'), batcher.post(A, '{}')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });

  it('caps a batch at 256 KB of envelopes', async () => {
    const { calls, exchange } = recorder();
    const batcher = new MessageBatcher(exchange);
    const big = (n: number): string => JSON.stringify({ n, pad: 'x'.repeat(150 * 1024) });
    await Promise.all([batcher.post(A, '{"n":1}'), batcher.post(A, big(2)), batcher.post(A, big(3)), batcher.post(A, '{"n":4}')]);
    expect(calls.map((c) => (JSON.parse(c.body) as { n: number }[]).map((e) => e.n))).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });
});
