import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, FrameTooLarge, nextFrameId, type FrameHead } from '../../../kernel/peers/frames.js';

const frames: [number, number, string][] = [
  [1, 0, '{"a":1}'],
  [2, 200, ''],
  [3, 429, 'é'.repeat(40)],
  [4, 0, 'x'.repeat(300)],
];
const wire = Buffer.concat(frames.map(([id, status, body]) => encodeFrame(id, status, body)));

function read(chunks: Buffer[], verdict: (h: FrameHead) => 'keep' | 'skip' = () => 'keep'): { heads: number[]; got: [number, number, string][] } {
  const heads: number[] = [];
  const got: [number, number, string][] = [];
  const reader = new FrameReader(
    1000,
    (h) => {
      heads.push(h.id);
      return verdict(h);
    },
    (h, body) => got.push([h.id, h.status, body.toString('utf8')]),
  );
  for (const c of chunks) reader.push(c);
  expect(reader.partial).toBe(false);
  // Skipped frames count as arrived too.
  expect(reader.completed).toBe(frames.length);
  return { heads, got };
}

describe('peer stream frames', () => {
  it('come out whole and in order however the bytes are cut', () => {
    for (let a = 0; a <= wire.length; a += 7) {
      for (let b = a; b <= wire.length; b += 13) {
        const { got } = read([wire.subarray(0, a), wire.subarray(a, b), wire.subarray(b)]);
        expect(got).toEqual(frames);
      }
    }
    // one byte at a time
    expect(read([...wire].map((byte) => Buffer.from([byte]))).got).toEqual(frames);
  });

  it('let a skipped frame pass unread and go on with the next', () => {
    const { heads, got } = read([wire.subarray(0, 20), wire.subarray(20)], (h) => (h.id === 3 ? 'skip' : 'keep'));
    expect(heads).toEqual([1, 2, 3, 4]);
    expect(got).toEqual(frames.filter(([id]) => id !== 3));
  });

  it('refuse a frame longer than the limit from its head, before its body is buffered', () => {
    const reader = new FrameReader(
      100,
      () => 'keep',
      () => undefined,
    );
    const big = encodeFrame(9, 0, 'y'.repeat(101));
    expect(() => reader.push(big.subarray(0, 10))).toThrow(FrameTooLarge);
  });

  it('report a frame cut short as partial', () => {
    const reader = new FrameReader(
      1000,
      () => 'keep',
      () => undefined,
    );
    reader.push(wire.subarray(0, 12));
    expect(reader.partial).toBe(true);
  });

  it('number ids from 1 and wrap before 2^32', () => {
    expect(nextFrameId(0)).toBe(1);
    expect(nextFrameId(0xffff_ffff)).toBe(1);
  });
});
