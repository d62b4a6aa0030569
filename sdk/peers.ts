/** Node-to-node messages (builtin plugins only). */
import type { NodeAddresses } from './identity.js';

/** A peer as the message layer knows it: its key hash (when known) and where it listens. */
export interface PeerTarget {
  /** Hex SHA-256 of the peer's Ed25519 key; unknown before the first hello with a new address. */
  pubkeyHash?: string | null;
  /** Raw X25519 key to seal to; fetched with a hello when absent. */
  sealingKey?: Buffer | null;
  addresses: Partial<NodeAddresses>;
}

/** The verified sender of an inbound message. */
export interface PeerSender {
  pubkeyHash: string;
  publicKey: Buffer;
  sealingKey: Buffer;
  addresses: NodeAddresses;
}

/** What a plugin sends: a `type` the receiving plugin registered, plus its own fields. */
export type PeerPayload = { type: string } & Record<string, unknown>;

export interface InboundPeerMessage {
  type: string;
  payload: PeerPayload;
  sender: PeerSender;
  /** The sender's stable id for this message; the same across retries. */
  messageId: string;
  receivedAt: number;
}

/**
 * A handler's answer. Throw `PeerRefusal` to refuse (the sender sees ok:false with the code and does not
 * retry); return data for ok:true.
 */
export type PeerHandler = (message: InboundPeerMessage) => Record<string, unknown> | Promise<Record<string, unknown>>;

export class PeerRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'PeerRefusal';
  }
}

export interface PeerReply {
  ok: boolean;
  data: Record<string, unknown>;
  error: { code: string; message: string } | null;
  /** The replying node, verified from its signed reply. */
  sender: PeerSender;
}

/** A message queued in the outbox: delivered after commit, retried with backoff, then dead-lettered. */
export interface QueuedPeerMessage {
  id: string;
  target: PeerTarget;
  payload: PeerPayload;
  attempts: number;
}

export interface OutboxHooks {
  /** The peer accepted the message (ok:true). Runs once. */
  delivered?(message: QueuedPeerMessage, reply: PeerReply): void | Promise<void>;
  /** The peer answered ok:false: a final refusal, not retried. */
  refused?(message: QueuedPeerMessage, reply: PeerReply): void | Promise<void>;
  /** Every attempt failed: the message went to the dead letter queue. */
  dead?(message: QueuedPeerMessage, reason: string): void | Promise<void>;
  /** Whether an operator may retry it from the dead letter queue, and how to refresh it first. */
  retryable?: boolean;
  refresh?(payload: PeerPayload): PeerPayload;
  /** The dead letter queue's `message type` column (transaction, contact, p2p, rp2p, ...). */
  label?: string;
  /**
   * How an operator retry runs, for the messages a plugin delivers itself and parks with `ctx.peer.deadLetter`:
   * resolve with the outcome once the peer answered (final either way); throw `PeerDeliveryError` when it could not
   * be reached (the item stays pending with that reason). When set, it replaces the outbox resend and the
   * delivered/refused hooks.
   */
  retry?(message: QueuedPeerMessage): Promise<DeadLetterOutcome>;
}

/** What the owner's retry of a dead letter came to: delivered, or refused (by the peer, or by the owner for it). */
export type DeadLetterOutcome =
  | { ok: true; /** The message as finally sent (re-signed), kept with the item. */ payload?: PeerPayload }
  | { ok: false; /** The refusal code; the item's reason becomes `refused: <code>`. */ refusal: string; payload?: PeerPayload };

/** A message a plugin delivered itself (`request`) whose every attempt failed: parked like an outbox message. */
export interface DeadLetter {
  /** The message's stable id, the same across its attempts (the owner's own id): unique in the queue. */
  messageId: string;
  /** Its peer message type: the hooks registered with `outcomes(type)` give its label and run its retry. */
  type: string;
  target: PeerTarget;
  payload: PeerPayload;
  /** Attempts made so far (the item's retry count). */
  attempts: number;
  reason: string;
}

/** Dead letters of messages a plugin delivers itself (part of `ctx.peer`). */
export interface PeerDeadLetterApi {
  /**
   * Parks a message whose delivery failed for good, inside the caller's transaction (`ctx.db.tx`). Parking an id that
   * is already pending or retrying updates its attempts, reason and payload; a finished item stays finished.
   */
  deadLetter(letter: DeadLetter): void;
  /**
   * The message reached its peer another way (its owner resent it): resolves its pending item with the outcome, in
   * the caller's transaction. False when there is no pending item of that type and id.
   */
  resolveDeadLetter(type: string, messageId: string, outcome: DeadLetterOutcome): boolean;
}

export interface PeerHello {
  pubkeyHash: string;
  publicKey: Buffer;
  sealingKey: Buffer;
  addresses: NodeAddresses;
  version: string;
}

export interface PeerApi extends PeerDeadLetterApi {
  /** Registers the handler of a message type; one plugin owns each type. */
  handle(type: string, handler: PeerHandler): void;
  /** Refuses messages before any handler runs (a blocked peer); return a refusal or null. */
  filter(fn: (sender: PeerSender, type: string) => PeerRefusal | null): void;
  /** Sends now and waits for the signed reply; throws `PeerDeliveryError` when the peer cannot be reached. */
  request(target: PeerTarget, payload: PeerPayload): Promise<PeerReply>;
  /** Queues a message inside the caller's transaction (`ctx.db.tx`); it is sent right after commit. */
  enqueue(target: PeerTarget, payload: PeerPayload, options?: { messageId?: string }): string;
  /** Hooks for the outcome of queued messages of a type. */
  outcomes(type: string, hooks: OutboxHooks): void;
  /** Fetches and verifies the keys a node publishes at an address. */
  hello(address: string): Promise<PeerHello>;
  /**
   * The address a message to these addresses goes to under the node's transport settings (`defaultTransportMode`,
   * then tor > https > http); a fallback is tried only when that one fails. Null when none is usable.
   */
  firstAddress(addresses: Partial<NodeAddresses>): string | null;
  /**
   * An HTTP exchange with a route a plugin serves on a peer node (`/p/<plugin>/...`), for a protocol of the plugin's
   * own toward a contact (a client library's session, say), trusted as peer messages are: at an https address the
   * node must show the certificate pinned for that address (pinned on first use, like the peer transport's), at an
   * http address it goes as is. Connections are kept per address. `address` is an http or https peer address (not an onion: use
   * `ctx.kernel.outbound` through Tor). The answer's body streams; rejects with `OutboundError`.
   */
  fetch(address: string, path: string, init?: PeerFetchInit): Promise<Response>;
}

export interface PeerFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Ends the exchange (the request or the body being read) as the Fetch API's signal does. */
  signal?: AbortSignal;
}

export class PeerDeliveryError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** False when trying again cannot help (the address answers for another node). */
    readonly transient = true,
  ) {
    super(message);
    this.name = 'PeerDeliveryError';
  }
}
