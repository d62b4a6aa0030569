/**
 * The routing plugin's node-to-node messages and the pure rules they follow (docs/protocol.md, "Routing").
 *
 *   route.request   discovery (DLQ label p2p): {hash, salt, time, currency, amount, budget, fast, expires, probe?}
 *                   reply {status: 'answered', response} when the receiver can answer at once (destination, dead
 *                   end, a search already done), else {status: 'pending'} and a route.response follows
 *   route.response  an answer (DLQ label rp2p): {hash, budget, found, amount?, hops?, condition?, signature?,
 *                   max?, rate?, limit_at?, limit_line?} (the last four answer a probe: see `Capacity`)
 *   route.cancel    the asker does not need the offer any more: {hash, budget}
 *   route.prepare   a hash-locked leg, payer → payee: {hash, budget, statement, signature}
 *                   reply {status: 'locked' | 'fulfilled', fulfillment?, recipient_signature}
 *   route.fulfil    payee → payer, the preimage: {txid, fulfillment}
 *   route.reject    payee → payer, the leg is released: {txid, reason}
 *   route.note      originator → destination, sealed: {hash, secret, description?, origin_address?, split?}
 *                   (split: {secret, total}, the part of a split payment: the group's secret and the whole amount)
 *   route.split_abort  originator → destination, sealed: {group, secret}: a part of the split failed, release the rest
 */
import { createHash, randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { PeerRefusal, percentOf, type Minor } from '../../sdk/index.js';

export const MSG = {
  request: 'route.request',
  response: 'route.response',
  cancel: 'route.cancel',
  prepare: 'route.prepare',
  fulfil: 'route.fulfil',
  reject: 'route.reject',
  note: 'route.note',
  splitAbort: 'route.split_abort',
} as const;

export const REFUSAL = {
  invalid: 'invalid_request',
  rateLimited: 'rate_limited',
  notAccepted: 'contact_not_accepted',
  currency: 'currency_not_allowed',
  insufficientCredit: 'insufficient_credit',
  expired: 'expired',
  unknownRoute: 'route_unknown',
  mismatch: 'route_mismatch',
  unknownLeg: 'unknown_leg',
  badFulfillment: 'invalid_fulfillment',
  rejected: 'rejected',
  clearingOff: 'clearing_not_allowed',
} as const;

export const HEX64 = /^[0-9a-f]{64}$/;
const MINOR = /^[1-9][0-9]{0,29}$/;
const CURRENCY = /^[A-Za-z0-9]{3,10}$/;
/** The most legs a route may have (maxP2pLevel's ceiling). */
export const MAX_BUDGET = 10;

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');
/** The condition a preimage (hex) fulfils: hex SHA-256 of its bytes. */
export const conditionOf = (preimage: string): string => sha256Hex(Buffer.from(preimage, 'hex'));

/**
 * The route hash commits to the destination's address (canonical form), a salt and the request time, so a relay
 * learns the destination only if it already knows that address (it tests its own and its contacts' addresses).
 */
export const routeHash = (address: string, salt: string, timeMicros: number): string => sha256Hex(`wn-route-v1\n${address}\n${salt}\n${timeMicros}`);

/** A relay's fee on what it passes on: its percent for the upstream's line, truncated to 1e-8, at least 1e-8 when not zero. */
export function relayFee(amount: Minor, percent: string | null): Minor {
  if (percent === null || Number(percent) === 0) return 0n;
  const fee = percentOf(amount, percent);
  return fee > 0n ? fee : 1n;
}

/**
 * A probe's name for one line, the one that limits a route (`Capacity.line`): the same on every branch that line
 * limits, and unlike any other line's; it names the line within this probe only, so it tells who holds it to nobody.
 */
export const lineTag = (probeHash: string, creditor: string, debtor: string): string => sha256Hex(`wn-probe-line-v1\n${probeHash}\n${creditor}\n${debtor}`);

/** What the destination offers a probe: the credit it extends to the asker, at no fee, limited by that last leg. */
export const destinationCapacity = (askerCredit: Minor, line: string): Capacity => ({ max: askerCredit, rate: '1', limitAt: 1, line });

/**
 * What a relay offers a probe's asker through a route downstream: that route's capacity, narrowed to what the credit
 * the relay extends to the asker can pay for at the route's rate times the relay's own fee.
 */
export function relayCapacity(via: Capacity, viaHops: number, feePercent: string | null, askerCredit: Minor, line: string): Capacity {
  const rate = new Decimal(via.rate).times(new Decimal(feePercent ?? 0).div(100).plus(1)).toDecimalPlaces(20);
  const byLine = BigInt(new Decimal(askerCredit.toString()).div(rate).toFixed(0, Decimal.ROUND_DOWN));
  // The asker's leg, counted from the destination's end: the relay's own legs to it (viaHops + 1), plus one.
  if (byLine < via.max) return { max: byLine, rate: rate.toFixed(), limitAt: viaHops + 2, line };
  return { ...via, rate: rate.toFixed() };
}

/** Whether a route costing `total` for `base` stays within `maxFee` percent of the amount (exactly, no rounding). */
export function withinMaxFee(base: Minor, total: Minor, maxFeePercent: string | number): boolean {
  // An integer fee is at most base x p / 100 exactly when it is at most that value truncated.
  return total - base <= percentOf(base, maxFeePercent);
}

/**
 * The hop budget of a new route request (the reference's rule): maxP2pLevel, or when randomized, from half of it
 * upwards, one more level at a time with probability 0.7, so a relay cannot tell how far the originator is.
 */
export function hopBudget(maxLevel: number, randomized: boolean, random: () => number = Math.random): number {
  const max = Math.max(1, Math.min(MAX_BUDGET, Math.floor(maxLevel)));
  if (!randomized) return max;
  let budget = Math.max(1, Math.floor(max / 2));
  while (budget < max && random() >= 0.3) budget++;
  return budget;
}

/**
 * The hop budget of a request this node originates: the payment's (maxP2pLevel, randomized as the setting says), or
 * for a debt-cycle clearing the longest cycle it may clear (`clearingMaxCycleLength`, legs, fixed: a cycle is not
 * hidden from its own members).
 */
export function originBudget(setting: (key: string) => unknown, clearing: boolean, randomized = setting('hopBudgetRandomized') !== false): number {
  if (clearing) return Math.max(3, Math.min(MAX_BUDGET, Number(setting('clearingMaxCycleLength') ?? 6)));
  return hopBudget(Number(setting('maxP2pLevel') ?? 6), randomized);
}

/** The bytes a responder signs for an offer: it carries `amount` to the destination of `hash` within `hops` legs. */
export const offerBytes = (o: { hash: string; budget: number; amount: Minor; hops: number; condition: string; currency: string }): Buffer =>
  Buffer.from(`wn-route-offer-v1\n${o.hash}\n${o.budget}\n${o.amount}\n${o.hops}\n${o.condition}\n${o.currency}`, 'utf8');

// ---- payloads

export interface RouteRequest {
  hash: string;
  salt: string;
  time: number;
  currency: string;
  amount: Minor;
  /** Legs the receiver may still use to reach the destination (0: only the destination itself answers found). */
  budget: number;
  fast: boolean;
  /** Discovery deadline, ms since the epoch. */
  expires: number;
  /**
   * A capacity probe (max-sendable): every node answers with the most its route can carry (`Capacity`) instead of
   * refusing an amount it cannot carry; nothing is reserved and nothing is paid on it.
   */
  probe?: boolean;
  /**
   * A debt-cycle clearing (docs/protocol.md, "Clearing"): the route runs only over lines whose payee owes its payer,
   * with no fee, and ends at the originator itself; only nodes that run `autoCycleClearing` take part.
   */
  clearing?: boolean;
  /**
   * A part of a split payment (docs/protocol.md, "Split payments"): the group's id, hex SHA-256 of a secret only the
   * originator and, from its note, the destination know. The destination locks every part of a group to one
   * condition and fulfils none until the parts add up to the whole.
   */
  split?: string;
}

/**
 * What a route can carry, in a probe's answer: `max`, the most that reaches the destination through the responder
 * (every line from the asker's onwards counted); `rate`, what the asker pays the responder per unit delivered (the
 * product of 1 + fee/100 along the route: an estimate that ignores each relay's truncation to 1e-8); `limitAt`, the
 * leg that sets `max`, counted from the destination's end (1: the leg into the destination).
 */
export interface Capacity {
  max: Minor;
  rate: string;
  limitAt: number;
  /**
   * The line that sets `max` (`lineTag`): two branches that name the same one share it, and together carry no more
   * than either. Absent in an older node's answer.
   */
  line?: string;
}

export interface Offer {
  found: true;
  /** What the asker pays the responder for this route. */
  amount: Minor;
  /** Legs from the responder to the destination. */
  hops: number;
  condition: string;
  signature: string;
  /** A probe's answer. */
  capacity?: Capacity;
}

export type RouteAnswer = Offer | { found: false };

const bad = (message: string): PeerRefusal => new PeerRefusal(REFUSAL.invalid, message);

const int = (v: unknown, min: number, max: number, field: string): number => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) throw bad(`${field} must be an integer from ${min} to ${max}`);
  return v;
};

const hex64 = (v: unknown, field: string): string => {
  if (typeof v !== 'string' || !HEX64.test(v)) throw bad(`${field} must be 64 lower-case hex characters`);
  return v;
};

const minor = (v: unknown, field: string): Minor => {
  if (typeof v !== 'string' || !MINOR.test(v)) throw bad(`${field} must be a positive integer of minor units`);
  return BigInt(v);
};

export function parseRequest(p: Record<string, unknown>): RouteRequest {
  if (typeof p.salt !== 'string' || !HEX64.test(p.salt)) throw bad('salt must be 64 hex characters');
  if (typeof p.currency !== 'string' || !CURRENCY.test(p.currency)) throw bad('currency is malformed');
  if (typeof p.fast !== 'boolean') throw bad('fast must be a boolean');
  return {
    hash: hex64(p.hash, 'hash'),
    salt: p.salt,
    time: int(p.time, 1, Number.MAX_SAFE_INTEGER, 'time'),
    currency: p.currency,
    amount: minor(p.amount, 'amount'),
    budget: int(p.budget, 0, MAX_BUDGET, 'budget'),
    fast: p.fast,
    expires: int(p.expires, 1, Number.MAX_SAFE_INTEGER, 'expires'),
    ...(p.probe === true ? { probe: true } : {}),
    ...(p.clearing === true ? { clearing: true } : {}),
    ...(p.split !== undefined ? { split: hex64(p.split, 'split') } : {}),
  };
}

export const requestPayload = (r: RouteRequest): Record<string, unknown> & { type: string } => ({
  type: MSG.request,
  hash: r.hash,
  salt: r.salt,
  time: r.time,
  currency: r.currency,
  amount: r.amount.toString(),
  budget: r.budget,
  fast: r.fast,
  expires: r.expires,
  ...(r.probe ? { probe: true } : {}),
  ...(r.clearing ? { clearing: true } : {}),
  ...(r.split ? { split: r.split } : {}),
});

const MINOR_OR_ZERO = /^(0|[1-9][0-9]{0,29})$/;
const RATE = /^[0-9]{1,12}(\.[0-9]{1,40})?$/;

/** A probe's capacity fields, when the first three are there and well-formed (an older node sends none, or no line). */
function parseCapacity(a: Record<string, unknown>): Capacity | undefined {
  if (typeof a.max !== 'string' || !MINOR_OR_ZERO.test(a.max) || typeof a.rate !== 'string' || !RATE.test(a.rate)) return undefined;
  if (typeof a.limit_at !== 'number' || !Number.isSafeInteger(a.limit_at) || a.limit_at < 1 || a.limit_at > MAX_BUDGET + 1) return undefined;
  const line = typeof a.limit_line === 'string' && HEX64.test(a.limit_line) ? { line: a.limit_line } : {};
  return { max: BigInt(a.max), rate: a.rate, limitAt: a.limit_at, ...line };
}

export function parseAnswer(p: unknown): RouteAnswer {
  if (typeof p !== 'object' || p === null) throw bad('an answer must be an object');
  const a = p as Record<string, unknown>;
  if (a.found !== true) return { found: false };
  if (typeof a.signature !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(a.signature)) throw bad('signature must be base64url');
  const capacity = parseCapacity(a);
  return {
    found: true,
    amount: minor(a.amount, 'amount'),
    hops: int(a.hops, 0, MAX_BUDGET, 'hops'),
    condition: hex64(a.condition, 'condition'),
    signature: a.signature,
    ...(capacity ? { capacity } : {}),
  };
}

export const answerPayload = (a: RouteAnswer): Record<string, unknown> =>
  a.found
    ? {
        found: true,
        amount: a.amount.toString(),
        hops: a.hops,
        condition: a.condition,
        signature: a.signature,
        ...(a.capacity
          ? { max: a.capacity.max.toString(), rate: a.capacity.rate, limit_at: a.capacity.limitAt, ...(a.capacity.line ? { limit_line: a.capacity.line } : {}) }
          : {}),
      }
    : { found: false };

export function parseResponse(p: Record<string, unknown>): { hash: string; budget: number; answer: RouteAnswer } {
  return { hash: hex64(p.hash, 'hash'), budget: int(p.budget, 0, MAX_BUDGET, 'budget'), answer: parseAnswer(p) };
}

export function parseCancel(p: Record<string, unknown>): { hash: string; budget: number } {
  return { hash: hex64(p.hash, 'hash'), budget: int(p.budget, 0, MAX_BUDGET, 'budget') };
}

export function parsePrepare(p: Record<string, unknown>): { hash: string; budget: number; statement: string; signature: string } {
  if (typeof p.statement !== 'string' || typeof p.signature !== 'string') throw bad('statement and signature are required');
  return { hash: hex64(p.hash, 'hash'), budget: int(p.budget, 0, MAX_BUDGET, 'budget'), statement: p.statement, signature: p.signature };
}

export function parseFulfil(p: Record<string, unknown>): { txid: string; fulfillment: string } {
  return { txid: hex64(p.txid, 'txid'), fulfillment: hex64(p.fulfillment, 'fulfillment') };
}

export function parseReject(p: Record<string, unknown>): { txid: string; reason: string } {
  return { txid: hex64(p.txid, 'txid'), reason: typeof p.reason === 'string' ? p.reason.slice(0, 200) : 'rejected' };
}

/** What a split payment's note tells its destination: the group's secret (its id is the hash of it) and the whole. */
export interface SplitNote {
  secret: string;
  total: Minor;
}

export interface Note {
  hash: string;
  secret: string;
  description: string | null;
  originAddress: string | null;
  split: SplitNote | null;
}

export function parseNote(p: Record<string, unknown>): Note {
  if (typeof p.secret !== 'string' || !HEX64.test(p.secret)) throw bad('secret must be 64 hex characters');
  const description = p.description === undefined || p.description === null ? null : p.description;
  if (description !== null && (typeof description !== 'string' || [...description].length > 255)) throw bad('description must be at most 255 characters');
  const origin = typeof p.origin_address === 'string' && p.origin_address.length <= 300 ? p.origin_address : null;
  let split: SplitNote | null = null;
  if (p.split !== undefined) {
    if (typeof p.split !== 'object' || p.split === null) throw bad('split must be an object');
    const s = p.split as Record<string, unknown>;
    split = { secret: hex64(s.secret, 'split.secret'), total: minor(s.total, 'split.total') };
  }
  return { hash: hex64(p.hash, 'hash'), secret: p.secret, description, originAddress: origin, split };
}

export function parseSplitAbort(p: Record<string, unknown>): { group: string; secret: string } {
  return { group: hex64(p.group, 'group'), secret: hex64(p.secret, 'secret') };
}
