/**
 * The simulator's one random source (a seeded xoshiro128**), and its installation as the process's randomness:
 * Math.random and node:crypto's randomBytes/randomUUID/randomInt, so that salts, nonces, message ids and retry
 * jitter inside the nodes follow the seed too. Key generation inside OpenSSL stays random; the nodes' identities come
 * from seeded mnemonics instead (nodes.ts).
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

export class Rng {
  readonly #s: Uint32Array;

  constructor(seed: number) {
    // splitmix32 spreads one 32-bit seed over the four words of the state.
    this.#s = new Uint32Array(4);
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.#s[i] = (z ^ (z >>> 16)) >>> 0;
    }
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const s = this.#s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  /** [0, 1). */
  next(): number {
    return this.u32() / 2 ** 32;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** An independent stream (for the nodes' own randomness, so a simulator decision added later does not shift it). */
  fork(): Rng {
    return new Rng(this.u32());
  }
}

const rotl = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;

type Restore = () => void;

/** Makes the process's randomness come from `rng` until the returned function is called. */
export function installRandom(rng: Rng): Restore {
  const saved = { random: Math.random, randomBytes: crypto.randomBytes, randomUUID: crypto.randomUUID, randomInt: crypto.randomInt };
  Math.random = () => rng.next();
  const randomBytes = (n: number, callback?: (err: Error | null, buf: Buffer) => void): Buffer | undefined => {
    const buf = rng.bytes(n);
    if (!callback) return buf;
    process.nextTick(() => callback(null, buf));
    return undefined;
  };
  Object.assign(crypto, {
    randomBytes,
    randomUUID: () => {
      const b = rng.bytes(16);
      b[6] = (b[6]! & 0x0f) | 0x40;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const h = b.toString('hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
    randomInt: (a: number, b?: number) => (b === undefined ? rng.int(0, a - 1) : rng.int(a, b - 1)),
  });
  syncBuiltinESMExports();
  return () => {
    Math.random = saved.random;
    Object.assign(crypto, { randomBytes: saved.randomBytes, randomUUID: saved.randomUUID, randomInt: saved.randomInt });
    syncBuiltinESMExports();
  };
}
