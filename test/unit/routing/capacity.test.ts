import { describe, expect, it } from 'vitest';
import { answerPayload, destinationCapacity, parseAnswer, parseRequest, relayCapacity, requestPayload } from '../../../builtin-plugins/routing/protocol.js';

const U = 100_000_000n; // 1 unit in minor units
const H = 'c'.repeat(64);

describe('capacity probes', () => {
  it('the destination offers the credit it extends to the asker, at rate 1, limited by the last leg', () => {
    expect(destinationCapacity(60n * U)).toEqual({ max: 60n * U, rate: '1', limitAt: 1 });
  });

  it('a relay narrows the route to what its own line can pay for at the compounded rate', () => {
    const last = destinationCapacity(100n * U);
    // 1 % on a 60-unit line: 60 / 1.01 = 59.40594059 delivered; the relay's line (leg 2 from the end) limits it.
    expect(relayCapacity(last, 0, '1', 60n * U)).toEqual({ max: 5_940_594_059n, rate: '1.01', limitAt: 2 });
    // A wider line keeps the downstream limit and its leg.
    expect(relayCapacity(last, 0, '1', 500n * U)).toEqual({ max: 100n * U, rate: '1.01', limitAt: 1 });
    // Two relays: rates multiply; the first relay's line is leg 3 from the end.
    const mid = relayCapacity(last, 0, '1', 500n * U);
    expect(relayCapacity(mid, 1, '2', 51n * U)).toEqual({ max: 4_950_495_049n, rate: '1.0302', limitAt: 3 });
    // An exhausted line: nothing gets through, and its leg says where.
    expect(relayCapacity(mid, 1, null, 0n)).toEqual({ max: 0n, rate: '1.01', limitAt: 3 });
  });

  it('probe fields travel in the request and the answer; an answer without them is a plain offer', () => {
    const req = { hash: H, salt: H, time: 1, currency: 'VWL', amount: 1n, budget: 3, fast: false, expires: 2, probe: true };
    expect(parseRequest(requestPayload(req))).toEqual(req);
    const plain = { ...req, probe: undefined };
    expect(parseRequest(requestPayload(plain))).not.toHaveProperty('probe');
    const offer = { found: true as const, amount: 1n, hops: 1, condition: H, signature: 'x'.repeat(86), capacity: { max: 0n, rate: '1.0302', limitAt: 3 } };
    expect(parseAnswer(answerPayload(offer))).toEqual(offer);
    const { capacity: _, ...bare } = offer;
    expect(parseAnswer(answerPayload(bare))).toEqual(bare);
    expect(parseAnswer({ ...answerPayload(bare), max: '-1', rate: '1', limit_at: 1 })).toEqual(bare);
  });
});
