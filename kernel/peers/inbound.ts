import type { Logger, NodeAddresses, PeerHandler, PeerSender } from '../../sdk/index.js';
import { PeerRefusal, storageFault, type StorageFault } from '../../sdk/index.js';
import { GroupCommit, type GroupCommitWatch } from '../db/group-commit.js';
import type { Db } from '../db/open.js';
import { decryptAtRest, encryptAtRest } from '../crypto/at-rest.js';
import { SlidingWindowLimiter } from '../auth/rate-limiter.js';
import type { Identity } from '../identity.js';
import type { PeerMessageCounter } from './client.js';
import { buildReplyEnvelope, EnvelopeError, inspectEnvelope, openInspected, PEER_WINDOW_SECONDS, type OpenedEnvelope } from './envelope.js';

export interface InboundResult {
  status: number;
  body: unknown;
}

interface StoredReply {
  ok: boolean;
  data: Record<string, unknown>;
  error: { code: string; message: string } | null;
}

type Filter = (sender: PeerSender, type: string) => PeerRefusal | null;

export const refuse = (status: number, code: string, message: string): InboundResult => ({ status, body: { error: { code, message } } });

const replayKey = (sender: string, nonce: string): string => `${sender}:${nonce}`;

const tooMany = (wait: number): InboundResult => refuse(429, 'rate_limit_exceeded', `Rate limit exceeded. Please try again in ${wait} seconds.`);

/**
 * Keys this node sent to, remembered (the most recent) to exempt them from the per-key budget; far more than the
 * peers one node deals with.
 */
const MAX_ADDRESSED_KEYS = 65_536;

/** Senders whose sealing key a verified signature bound to their identity, remembered (the most recent) for pair MACs. */
const MAX_BOUND_KEYS = 65_536;

/** Document 2's default of p2pRateLimitPerMinute, for a node where no plugin declared the setting. */
export const DEFAULT_MESSAGES_PER_KEY_PER_MINUTE = 60;

/**
 * Envelopes per minute one client address may send, as a multiple of the per-key limit: keys cost nothing to make,
 * addresses do, so one address gets room for ten busy keys and no more. Counted before any check, as even a
 * malformed or replayed envelope costs the node its parsing.
 */
export const ADDRESS_BUDGET_KEYS = 10;

/**
 * Stored replies kept per sending key, the newest: a reply is kept so that a retry of the same message is answered
 * without running its handler twice, and retries come within minutes, far fewer than this. Without a cap any key
 * could make the node store a reply for every message it cares to send.
 */
export const MAX_STORED_REPLIES_PER_SENDER = 256;

const ENVELOPE_STATUS: Record<EnvelopeError['code'], number> = {
  malformed: 400,
  wrong_recipient: 421,
  expired: 401,
  bad_signature: 401,
  undecryptable: 400,
  unexpected_sender: 401,
};

/**
 * The receiving side: verify, refuse replays, answer repeats of an already handled message from the
 * stored reply (so a retried message never runs its handler twice), dispatch by type, reply signed and
 * sealed to the sender.
 */
export class PeerInbound {
  #handlers = new Map<string, { owner: string; handler: PeerHandler }>();
  #filters: { owner: string; fn: Filter }[] = [];
  readonly #replay;
  readonly #replayPut;
  readonly #seenGet;
  readonly #seenPut;
  readonly #pruneReplay;
  readonly #pruneSeen;
  readonly #trimSeen;
  readonly #byKey = new SlidingWindowLimiter();
  readonly #byAddress = new SlidingWindowLimiter();
  /** In insertion order, oldest first, for the cap. */
  readonly #addressed = new Set<string>();
  /**
   * Sender key hash → its sealing key (base64url), as a request signature this node verified named it: a request from
   * that sender may then carry a pair MAC instead of a signature. In memory only: after a restart a sender's first MAC
   * is refused `signature_required` and it signs again.
   */
  readonly #bound = new Map<string, string>();
  /** Stored replies can hold what a plugin shared with one peer: they are encrypted like every secret at rest. */
  readonly #replyKey: Buffer;
  readonly #writes: GroupCommit;
  /** Replay-cache entries and stored replies not yet written by the group commit. */
  #pendingReplay = new Set<string>();
  #pendingSeen = new Map<string, string>();

  constructor(
    db: Db,
    private readonly identity: Identity,
    private readonly ownAddresses: () => NodeAddresses,
    private readonly retired: () => boolean,
    /** Messages per minute one sending key may have handled (p2pRateLimitPerMinute). */
    private readonly perKeyPerMinute: () => number,
    private readonly log: Logger,
    watch: GroupCommitWatch = {},
    private readonly counted: PeerMessageCounter = () => {},
  ) {
    this.#replay = db.prepare('SELECT 1 FROM peer_replay WHERE sender = ? AND nonce = ?').pluck();
    this.#replayPut = db.prepare('INSERT OR IGNORE INTO peer_replay (sender, nonce, ts) VALUES (?, ?, ?)');
    this.#writes = new GroupCommit(db, watch);
    this.#seenGet = db.prepare('SELECT reply FROM peer_seen WHERE sender = ? AND mid = ?');
    this.#seenPut = db.prepare('INSERT OR IGNORE INTO peer_seen (sender, mid, reply, at) VALUES (?, ?, ?, ?)');
    this.#pruneReplay = db.prepare('DELETE FROM peer_replay WHERE ts < ?');
    this.#pruneSeen = db.prepare('DELETE FROM peer_seen WHERE at < ?');
    this.#trimSeen = db.prepare(
      'DELETE FROM peer_seen WHERE sender = @sender AND mid IN (SELECT mid FROM peer_seen WHERE sender = @sender ORDER BY at DESC, mid DESC LIMIT -1 OFFSET @keep)',
    );
    this.#replyKey = identity.storageKey('peer-replies');
  }

  handle(owner: string, type: string, handler: PeerHandler): void {
    const existing = this.#handlers.get(type);
    if (existing) throw new Error(`peer message type "${type}" is already handled by ${existing.owner}`);
    this.#handlers.set(type, { owner, handler });
  }

  filter(owner: string, fn: Filter): void {
    this.#filters.push({ owner, fn });
  }

  /**
   * Records a key this node itself sends to: the operator's plugins chose to deal with it, so its messages are not
   * held to the per-key budget meant for keys nobody here asked to hear from. A burst from such a peer must not be
   * refused, and a stranger cannot get here, as nothing sends to a key on a stranger's word alone. The per-address
   * budget still counts everyone.
   */
  addressed(pubkeyHash: string): void {
    this.#addressed.delete(pubkeyHash);
    this.#addressed.add(pubkeyHash);
    if (this.#addressed.size > MAX_ADDRESSED_KEYS) this.#addressed.delete(this.#addressed.values().next().value!);
  }

  /** Forgets what a plugin registered (it is being unloaded). */
  removeOwner(owner: string): void {
    for (const [type, h] of this.#handlers) if (h.owner === owner) this.#handlers.delete(type);
    this.#filters = this.#filters.filter((f) => f.owner !== owner);
  }

  /** Writes pending replay-cache entries and replies now (shutdown). */
  flush(): void {
    this.#writes.flush();
  }

  prune(nowMs: number, keepSeenMs: number): void {
    this.flush();
    this.#pruneReplay.run(Math.floor(nowMs / 1000) - PEER_WINDOW_SECONDS - 1);
    this.#pruneSeen.run(nowMs - keepSeenMs);
  }

  /**
   * One envelope, already parsed from JSON (alone or as an element of a batch), from a client address. The cheap
   * refusals come first (address budget, shape, window, replay), the signature and decryption after them, and the
   * sending key's budget once the key is proven (only an unverified claim could be counted earlier, and anyone could
   * spend another key's budget with claims).
   */
  async receive(json: unknown, address: string): Promise<InboundResult> {
    if (this.retired()) return refuse(503, 'retired', 'this node is retired');
    const now = Date.now();
    const perKey = this.perKeyPerMinute();
    const addressWait = this.#byAddress.take(address, perKey * ADDRESS_BUDGET_KEYS, now);
    if (addressWait > 0) return tooMany(addressWait);
    let opened: OpenedEnvelope;
    try {
      const inspected = inspectEnvelope(this.identity, json, now);
      // Read-only: anyone can claim any key in a header, so a claim may be refused here but never recorded.
      if (this.#replayed(inspected.claimedSender, inspected.header.nonce)) return refuse(409, 'replay', 'this envelope was already received');
      let macKey: Buffer | undefined;
      if (inspected.signed.mac !== null) {
        const sealingKey = inspected.signed.sealingKey;
        if (this.#bound.get(inspected.claimedSender) !== sealingKey.toString('base64url')) {
          return refuse(401, 'signature_required', 'this node holds no sealing key of yours bound by a signature: sign the message');
        }
        macKey = this.#pairKeyFrom(sealingKey);
      }
      opened = openInspected(this.identity, inspected, undefined, macKey);
    } catch (err) {
      if (err instanceof EnvelopeError) return refuse(ENVELOPE_STATUS[err.code], err.code, err.message);
      throw err;
    }
    const { header, sender, payload } = opened;
    if (header.sr === true) this.#bind(sender);
    // No await since the check above: no other envelope with this nonce can have been recorded in between.
    const replayId = replayKey(sender.pubkeyHash, header.nonce);
    this.#pendingReplay.add(replayId);
    this.#writes.add(
      () => this.#replayPut.run(sender.pubkeyHash, header.nonce, header.ts),
      () => this.#pendingReplay.delete(replayId),
    );
    if (this.#addressed.has(sender.pubkeyHash)) {
      // A key this node sends to spends no budget, its address's included (taken back now that its fresh signature is
      // proven): peers that share an address (everyone over Tor arrives from the local daemon, nodes on one host)
      // would otherwise throttle each other's trade at ten keys' worth of messages a minute.
      this.#byAddress.refund(address);
    } else {
      const keyWait = this.#byKey.take(sender.pubkeyHash, perKey, now);
      if (keyWait > 0) return tooMany(keyWait);
    }
    const seenId = `${sender.pubkeyHash}:${header.mid}`;
    const repeatable = header.rep === true;
    const pendingReply = repeatable ? this.#pendingSeen.get(seenId) : undefined;
    const stored =
      pendingReply !== undefined
        ? { reply: pendingReply }
        : repeatable
          ? (this.#seenGet.get(sender.pubkeyHash, header.mid) as { reply: string } | undefined)
          : undefined;
    let reply: StoredReply;
    const type = typeof payload.type === 'string' ? payload.type : '';
    if (stored) {
      reply = JSON.parse(decryptAtRest(this.#replyKey, stored.reply, seenId).toString('utf8')) as StoredReply;
    } else {
      const outcome = await this.#dispatch(type, payload, sender, header.mid, now);
      if (!outcome) return refuse(500, 'handler_error', 'the message could not be processed; retry later');
      if (typeof outcome === 'string') return refuse(507, 'insufficient_storage', `this node cannot write to its disk (${outcome}); retry later`);
      reply = outcome;
    }
    if (!stored && repeatable) {
      const sealedReply = encryptAtRest(this.#replyKey, JSON.stringify(reply), seenId);
      this.#pendingSeen.set(seenId, sealedReply);
      this.#writes.add(
        () => {
          this.#seenPut.run(sender.pubkeyHash, header.mid, sealedReply, now);
          this.#trimSeen.run({ sender: sender.pubkeyHash, keep: MAX_STORED_REPLIES_PER_SENDER });
        },
        () => this.#pendingSeen.delete(seenId),
      );
    }
    const wire = buildReplyEnvelope(
      this.identity,
      this.ownAddresses(),
      sender.pubkeyHash,
      opened.replyKey!,
      { type: `${type}.reply`, ...reply },
      { mid: header.mid, re: header.nonce, signed: header.sr !== true, macAccepted: header.sr === true },
      Date.now(),
    );
    return { status: 200, body: wire };
  }

  /** The pair key for requests from the holder of a sealing key; undefined (the MAC then fails) for a key X25519 refuses. */
  #pairKeyFrom(sealingKey: Buffer): Buffer | undefined {
    try {
      return this.identity.pairKey(sealingKey, 'from');
    } catch {
      return undefined;
    }
  }

  /**
   * Remembers the sealing key an authenticated request named (a signature over the header names it; a MAC was made
   * with it): the sender's next requests may carry a pair MAC. Only for senders that take sealed replies (`sr`), which
   * are the ones that know the `ma` the reply answers with.
   */
  #bind(sender: PeerSender): void {
    const key = sender.sealingKey.toString('base64url');
    if (this.#bound.get(sender.pubkeyHash) === key) return;
    this.#bound.delete(sender.pubkeyHash);
    this.#bound.set(sender.pubkeyHash, key);
    if (this.#bound.size > MAX_BOUND_KEYS) this.#bound.delete(this.#bound.keys().next().value!);
  }

  #replayed(sender: string, nonce: string): boolean {
    return this.#pendingReplay.has(replayKey(sender, nonce)) || this.#replay.get(sender, nonce) !== undefined;
  }

  /**
   * Null when the handler failed unexpectedly, the fault when the disk refused its write: nothing is recorded either
   * way, so the sender's retry runs it again.
   */
  async #dispatch(type: string, payload: Record<string, unknown>, sender: PeerSender, messageId: string, now: number): Promise<StoredReply | StorageFault | null> {
    const reply = await this.#handled(type, payload, sender, messageId, now);
    const known = this.#handlers.has(type);
    const answered = typeof reply === 'object' ? reply : null;
    this.counted('in', known ? type : 'unknown', !answered ? 'error' : answered.ok ? 'ok' : known ? 'refused' : 'unknown_type');
    return reply;
  }

  async #handled(type: string, payload: Record<string, unknown>, sender: PeerSender, messageId: string, now: number): Promise<StoredReply | StorageFault | null> {
    const refusal = (r: PeerRefusal): StoredReply => ({ ok: false, data: r.data ?? {}, error: { code: r.code, message: r.message } });
    const entry = this.#handlers.get(type);
    if (!entry) return refusal(new PeerRefusal('unknown_type', `this node does not handle "${type}" messages`));
    for (const { fn } of this.#filters) {
      const r = fn(sender, type);
      if (r) return refusal(r);
    }
    try {
      const data = await entry.handler({ type, payload: payload as { type: string }, sender, messageId, receivedAt: now });
      return { ok: true, data, error: null };
    } catch (err) {
      if (err instanceof PeerRefusal) return refusal(err);
      const fault = storageFault(err);
      if (fault) {
        this.log.warn(`peer handler for ${type} held: the disk refused its write`, { storage: fault });
        return fault;
      }
      this.log.error(`peer handler for ${type} failed`, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return null;
    }
  }
}
