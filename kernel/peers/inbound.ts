import type { Logger, NodeAddresses, PeerHandler, PeerSender } from '../../sdk/index.js';
import { PeerRefusal } from '../../sdk/index.js';
import { GroupCommit } from '../db/group-commit.js';
import type { Db } from '../db/open.js';
import { decryptAtRest, encryptAtRest } from '../crypto/at-rest.js';
import type { Identity } from '../identity.js';
import { buildReplyEnvelope, EnvelopeError, openEnvelope, PEER_WINDOW_SECONDS } from './envelope.js';

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
    private readonly log: Logger,
  ) {
    this.#replay = db.prepare('SELECT 1 FROM peer_replay WHERE sender = ? AND nonce = ?').pluck();
    this.#replayPut = db.prepare('INSERT OR IGNORE INTO peer_replay (sender, nonce, ts) VALUES (?, ?, ?)');
    this.#writes = new GroupCommit(db);
    this.#seenGet = db.prepare('SELECT reply FROM peer_seen WHERE sender = ? AND mid = ?');
    this.#seenPut = db.prepare('INSERT OR IGNORE INTO peer_seen (sender, mid, reply, at) VALUES (?, ?, ?, ?)');
    this.#pruneReplay = db.prepare('DELETE FROM peer_replay WHERE ts < ?');
    this.#pruneSeen = db.prepare('DELETE FROM peer_seen WHERE at < ?');
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

  /** One envelope, already parsed from JSON (alone or as an element of a batch). */
  async receive(json: unknown): Promise<InboundResult> {
    if (this.retired()) return refuse(503, 'retired', 'this node is retired');
    const now = Date.now();
    let opened;
    try {
      opened = openEnvelope(this.identity, json, now);
    } catch (err) {
      if (err instanceof EnvelopeError) return refuse(ENVELOPE_STATUS[err.code], err.code, err.message);
      throw err;
    }
    const { header, sender, payload } = opened;
    const replayId = `${sender.pubkeyHash}:${header.nonce}`;
    if (this.#pendingReplay.has(replayId) || this.#replay.get(sender.pubkeyHash, header.nonce) !== undefined) {
      return refuse(409, 'replay', 'this envelope was already received');
    }
    this.#pendingReplay.add(replayId);
    this.#writes.add(() => {
      this.#replayPut.run(sender.pubkeyHash, header.nonce, header.ts);
      this.#pendingReplay.delete(replayId);
    });
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
      reply = outcome;
    }
    if (!stored && repeatable) {
      const sealedReply = encryptAtRest(this.#replyKey, JSON.stringify(reply), seenId);
      this.#pendingSeen.set(seenId, sealedReply);
      this.#writes.add(() => {
        this.#seenPut.run(sender.pubkeyHash, header.mid, sealedReply, now);
        this.#pendingSeen.delete(seenId);
      });
    }
    const wire = buildReplyEnvelope(
      this.identity,
      this.ownAddresses(),
      sender.pubkeyHash,
      opened.replyKey!,
      { type: `${type}.reply`, ...reply },
      { mid: header.mid, re: header.nonce },
      Date.now(),
    );
    return { status: 200, body: wire };
  }

  /** Null when the handler failed unexpectedly: nothing is recorded, so the sender's retry runs it again. */
  async #dispatch(type: string, payload: Record<string, unknown>, sender: PeerSender, messageId: string, now: number): Promise<StoredReply | null> {
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
      this.log.error(`peer handler for ${type} failed`, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return null;
    }
  }
}
