import { describe, expect, it } from 'vitest';
import { answerPayload, destinationCapacity, lineTag, parseAnswer, parseRequest, relayCapacity, requestPayload } from '../../../builtin-plugins/routing/protocol.js';

const U = 100_000_000n; // 1 unit in minor units
const H = 'c'.repeat(64);

describe('capacity probes', () => {
  // Lines by the name a probe gives them (lineTag): the destination's line into it, and a relay's line to its asker.
  const INTO_D = lineTag(H, 'd'.repeat(64), 'r'.repeat(64));
  const OWN = lineTag(H, 'r'.repeat(64), 'a'.repeat(64));

  it('the destination offers the credit it extends to the asker, at rate 1, limited by the last leg', () => {
    expect(destinationCapacity(60n * U, INTO_D)).toEqual({ max: 60n * U, rate: '1', limitAt: 1, line: INTO_D });
  });

  it('a relay narrows the route to what its own line can pay for at the compounded rate, and names the line that limits it', () => {
    const last = destinationCapacity(100n * U, INTO_D);
    // 1 % on a 60-unit line: 60 / 1.01 = 59.40594059 delivered; the relay's line (leg 2 from the end) limits it.
    expect(relayCapacity(last, 0, '1', 60n * U, OWN)).toEqual({ max: 5_940_594_059n, rate: '1.01', limitAt: 2, line: OWN });
    // A wider line keeps the downstream limit, its leg and its line.
    expect(relayCapacity(last, 0, '1', 500n * U, OWN)).toEqual({ max: 100n * U, rate: '1.01', limitAt: 1, line: INTO_D });
    // Two relays: rates multiply; the first relay's line is leg 3 from the end.
    const mid = relayCapacity(last, 0, '1', 500n * U, OWN);
    const first = lineTag(H, 'f'.repeat(64), 'a'.repeat(64));
    expect(relayCapacity(mid, 1, '2', 51n * U, first)).toEqual({ max: 4_950_495_049n, rate: '1.0302', limitAt: 3, line: first });
    // An exhausted line: nothing gets through, and its leg says where.
    expect(relayCapacity(mid, 1, null, 0n, first)).toEqual({ max: 0n, rate: '1.01', limitAt: 3, line: first });
  });

  it('a line has one name within a probe, another in the next, and no other line has it', () => {
    expect(lineTag(H, 'd'.repeat(64), 'r'.repeat(64))).toBe(INTO_D);
    expect(lineTag('e'.repeat(64), 'd'.repeat(64), 'r'.repeat(64))).not.toBe(INTO_D);
    expect(lineTag(H, 'r'.repeat(64), 'd'.repeat(64))).not.toBe(INTO_D);
    expect(INTO_D).toMatch(/^[0-9a-f]{64}$/);
  });

  it('probe fields travel in the request and the answer; an answer without them is a plain offer', () => {
    const req = { hash: H, salt: H, time: 1, currency: 'VWL', amount: 1n, budget: 3, fast: false, expires: 2, probe: true };
    expect(parseRequest(requestPayload(req))).toEqual(req);
    const plain = { ...req, probe: undefined };
    expect(parseRequest(requestPayload(plain))).not.toHaveProperty('probe');
    const offer = { found: true as const, amount: 1n, hops: 1, condition: H, signature: 'x'.repeat(86), capacity: { max: 0n, rate: '1.0302', limitAt: 3, line: INTO_D } };
    expect(parseAnswer(answerPayload(offer))).toEqual(offer);
    // An older node names no line; a malformed name is no name.
    const unnamed = { ...offer, capacity: { max: 0n, rate: '1.0302', limitAt: 3 } };
    expect(parseAnswer(answerPayload(unnamed))).toEqual(unnamed);
    expect(parseAnswer({ ...answerPayload(offer), limit_line: 'not-a-line' })).toEqual(unnamed);
    const { capacity: _, ...bare } = offer;
    expect(parseAnswer(answerPayload(bare))).toEqual(bare);
    expect(parseAnswer({ ...answerPayload(bare), max: '-1', rate: '1', limit_at: 1 })).toEqual(bare);
  });
});
