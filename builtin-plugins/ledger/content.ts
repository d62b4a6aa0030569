/**
 * The signed form of a ledger transaction (pure functions; no database, no network).
 *
 * txid    = hex SHA-256 of "wn-txid-v1\n" + from + "\n" + to + "\n" + amount + "\n" + currency + "\n" + time + "\n" + salt
 *           (the fields that never change when the transaction is re-pointed onto another chain head)
 * content = canonical JSON (keys sorted, no spaces) of
 *           {v:1, txid, prev, from, to, amount, currency, time, salt, memo, description?, expires?}
 * signed bytes = "wn-tx-v1\n" + content; the sender signs them (Ed25519) and the recipient countersigns the very
 *           same bytes. Both keep `content` verbatim (exports' signed_message_content) and both signatures.
 *
 * `amount` is the amount in minor units (1 = 1e-8) as a decimal string, `time` microseconds since the epoch,
 * `salt` 32 random hex characters, `expires` (present only with directTxExpiration > 0) milliseconds since the
 * epoch after which the recipient refuses the transaction.
 *
 * A leg of a routed payment (docs/protocol.md, "Routing") carries the route's hash as its `memo`, the `condition`
 * (hex SHA-256) it was locked to and the `fulfillment` (the hex preimage) that released it, and no description:
 * it becomes a chain entry only once fulfilled. Before that the payer signs a leg statement (`buildLeg`): the same
 * identity fields, the condition and the lock's expiry, without `prev` (the chain may move while the leg is locked).
 * A leg of a debt-cycle clearing also carries `kind: "clearing"` in both forms, so both sides, their exports and any
 * node that syncs the chain see it as a clearing (tx_type `clearing`) from the signed bytes alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { MAX_AMOUNT, type Minor } from '../../sdk/money.js';

export const CONTENT_VERSION = 1;
export const TX_SIGN_DOMAIN = 'wn-tx-v1';
export const LEG_SIGN_DOMAIN = 'wn-leg-v1';
const TXID_DOMAIN = 'wn-txid-v1';
export const MEMO_STANDARD = 'standard';
export const MAX_DESCRIPTION = 255;
/** The `kind` of a debt-cycle clearing's legs (and their tx_type). */
export const KIND_CLEARING = 'clearing';

export interface TxContent {
  v: 1;
  txid: string;
  prev: string | null;
  from: string;
  to: string;
  amount: string;
  currency: string;
  time: number;
  salt: string;
  memo: string;
  description?: string;
  expires?: number;
  condition?: string;
  fulfillment?: string;
  kind?: typeof KIND_CLEARING;
}

/** The payer's signed promise of a hash-locked leg: pay `amount` to `to` against the preimage of `condition` until `expires`. */
export interface LegContent {
  v: 1;
  leg: true;
  txid: string;
  from: string;
  to: string;
  amount: string;
  currency: string;
  time: number;
  salt: string;
  memo: string;
  condition: string;
  expires: number;
  kind?: typeof KIND_CLEARING;
}

export interface TxIdentityFields {
  from: string;
  to: string;
  amount: Minor;
  currency: string;
  time: number;
  salt: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const MINOR = /^[1-9][0-9]{0,29}$/;

export const isTxid = (value: unknown): value is string => typeof value === 'string' && HEX64.test(value);

/** Whether a memo names a route (a routed leg) rather than the direct payments' `standard`. */
export const isRouteMemo = (memo: string): boolean => HEX64.test(memo);

export const sha256Hex = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

export function deriveTxid(f: TxIdentityFields): string {
  return createHash('sha256')
    .update(`${TXID_DOMAIN}\n${f.from}\n${f.to}\n${f.amount.toString()}\n${f.currency}\n${f.time}\n${f.salt}`, 'utf8')
    .digest('hex');
}

export const newSalt = (): string => randomBytes(16).toString('hex');

/** Microseconds since the epoch, strictly increasing within this process. */
let lastMicros = 0;
export function nowMicros(nowMs: number = Date.now()): number {
  const candidate = Math.floor(nowMs * 1000 + (performance.now() % 1) * 1000);
  lastMicros = candidate > lastMicros ? candidate : lastMicros + 1;
  return lastMicros;
}

/** Canonical JSON: object keys sorted, no whitespace, undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

export function buildContent(fields: Omit<TxContent, 'v'>): string {
  const content: TxContent = { v: CONTENT_VERSION, ...fields };
  if (content.description === undefined || content.description === '') delete content.description;
  if (content.expires === undefined) delete content.expires;
  return canonicalJson(content);
}

export function buildLeg(fields: Omit<LegContent, 'v' | 'leg'>): string {
  return canonicalJson({ v: CONTENT_VERSION, leg: true, ...fields } satisfies LegContent);
}

export const signedBytes = (content: string): Buffer => Buffer.from(`${TX_SIGN_DOMAIN}\n${content}`, 'utf8');
export const legSignedBytes = (content: string): Buffer => Buffer.from(`${LEG_SIGN_DOMAIN}\n${content}`, 'utf8');

export class ContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContentError';
  }
}

/**
 * Parses and checks a received content string: shape, canonical form (so both sides keep the same bytes), the
 * amount range and the txid derivation. Signatures are checked by the caller (it knows the keys).
 */
export function parseContent(text: unknown): TxContent & { amountMinor: Minor } {
  if (typeof text !== 'string' || text.length > 4096) throw new ContentError('content must be a string of at most 4096 bytes');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ContentError('content is not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ContentError('content is not an object');
  const c = raw as Record<string, unknown>;
  const allowed = new Set(['v', 'txid', 'prev', 'from', 'to', 'amount', 'currency', 'time', 'salt', 'memo', 'description', 'expires', 'condition', 'fulfillment', 'kind']);
  for (const key of Object.keys(c)) if (!allowed.has(key)) throw new ContentError(`unknown content field "${key}"`);
  if (c.v !== CONTENT_VERSION) throw new ContentError('unsupported content version');
  if (c.prev !== null && !isTxid(c.prev)) throw new ContentError('prev must be a txid or null');
  const amountMinor = checkIdentity(c);
  if (typeof c.memo !== 'string' || (c.memo !== MEMO_STANDARD && !isRouteMemo(c.memo))) {
    throw new ContentError('memo must be "standard" for a direct transaction or a route hash for a routed leg');
  }
  if (isRouteMemo(c.memo)) {
    // A routed leg settles only with the preimage of the condition it was locked to, and carries no description:
    // the payment's description travels to the destination alone (docs/protocol.md, "Routing").
    if (!isTxid(c.condition) || !isTxid(c.fulfillment)) throw new ContentError('a routed leg carries its condition and fulfillment (64 hex each)');
    if (sha256Hex(c.fulfillment) !== c.condition) throw new ContentError('the fulfillment is not the preimage of the condition');
    if (c.description !== undefined || c.expires !== undefined) throw new ContentError('a routed leg carries no description and no expiry');
  } else if (c.condition !== undefined || c.fulfillment !== undefined || c.kind !== undefined) {
    throw new ContentError('condition, fulfillment and kind belong to routed legs only');
  }
  checkKind(c);
  if (c.description !== undefined && (typeof c.description !== 'string' || [...c.description].length > MAX_DESCRIPTION || c.description === '')) {
    throw new ContentError(`description must be a non-empty string of at most ${MAX_DESCRIPTION} characters`);
  }
  if (c.expires !== undefined && (typeof c.expires !== 'number' || !Number.isSafeInteger(c.expires) || c.expires <= 0)) {
    throw new ContentError('expires must be milliseconds since the epoch');
  }
  const content = c as unknown as TxContent;
  if (canonicalJson(content) !== text) throw new ContentError('content is not in canonical form');
  return { ...content, amountMinor };
}

/** The columns of a ledger row that its signed content fixes (parsed by `parseContent`; `text` is the content). */
export function signedColumns(content: TxContent & { amountMinor: Minor }, text: string) {
  return {
    txid: content.txid,
    fromHash: content.from,
    toHash: content.to,
    amount: content.amountMinor,
    currency: content.currency,
    timeMicros: content.time,
    salt: content.salt,
    prevTxid: content.prev,
    description: content.description ?? null,
    expiresAt: content.expires ?? null,
    content: text,
    ...(content.kind ? { kind: content.kind } : {}),
  };
}

function checkKind(c: Record<string, unknown>): void {
  if (c.kind !== undefined && c.kind !== KIND_CLEARING) throw new ContentError(`kind must be "${KIND_CLEARING}" when present`);
}

/** The identity fields every signed form shares, the txid derivation included; returns the amount. */
function checkIdentity(c: Record<string, unknown>): Minor {
  if (!isTxid(c.txid)) throw new ContentError('txid must be 64 lower-case hex characters');
  if (typeof c.from !== 'string' || !HEX64.test(c.from)) throw new ContentError('from must be a pubkey hash');
  if (typeof c.to !== 'string' || !HEX64.test(c.to)) throw new ContentError('to must be a pubkey hash');
  if (typeof c.amount !== 'string' || !MINOR.test(c.amount)) throw new ContentError('amount must be a positive integer of minor units');
  const amountMinor = BigInt(c.amount);
  if (amountMinor > MAX_AMOUNT) throw new ContentError('amount is above the maximum');
  if (typeof c.currency !== 'string' || !/^[A-Za-z0-9]{3,10}$/.test(c.currency)) throw new ContentError('currency is malformed');
  if (typeof c.time !== 'number' || !Number.isSafeInteger(c.time) || c.time <= 0) throw new ContentError('time must be microseconds');
  if (typeof c.salt !== 'string' || !HEX32.test(c.salt)) throw new ContentError('salt must be 32 hex characters');
  const txid = deriveTxid({ from: c.from, to: c.to, amount: amountMinor, currency: c.currency, time: c.time, salt: c.salt });
  if (txid !== c.txid) throw new ContentError('txid does not match the signed fields');
  return amountMinor;
}

/** Parses and checks a leg statement (shape, canonical form, txid); the caller checks the payer's signature. */
export function parseLeg(text: unknown): LegContent & { amountMinor: Minor } {
  if (typeof text !== 'string' || text.length > 4096) throw new ContentError('leg must be a string of at most 4096 bytes');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ContentError('leg is not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ContentError('leg is not an object');
  const c = raw as Record<string, unknown>;
  const allowed = new Set(['v', 'leg', 'txid', 'from', 'to', 'amount', 'currency', 'time', 'salt', 'memo', 'condition', 'expires', 'kind']);
  for (const key of Object.keys(c)) if (!allowed.has(key)) throw new ContentError(`unknown leg field "${key}"`);
  if (c.v !== CONTENT_VERSION || c.leg !== true) throw new ContentError('not a leg statement of a supported version');
  const amountMinor = checkIdentity(c);
  if (typeof c.memo !== 'string' || !isRouteMemo(c.memo)) throw new ContentError('a leg names its route hash as memo');
  if (!isTxid(c.condition)) throw new ContentError('condition must be 64 hex characters');
  if (typeof c.expires !== 'number' || !Number.isSafeInteger(c.expires) || c.expires <= 0) throw new ContentError('expires must be milliseconds since the epoch');
  checkKind(c);
  const leg = c as unknown as LegContent;
  if (canonicalJson(leg) !== text) throw new ContentError('leg is not in canonical form');
  return { ...leg, amountMinor };
}
