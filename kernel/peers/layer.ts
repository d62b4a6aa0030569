import type { Logger, NodeAddresses, PeerApi } from '../../sdk/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, PeerDeliveryError } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import type { TxRunner } from '../db/tx.js';
import { BodyReader, dropUnreadBodyLater, overBudget } from '../http/body.js';
import { REQUEST_TIMEOUT_MS } from '../net/listener.js';
import { normalizeIp } from '../net/proxies.js';
import type { Identity } from '../identity.js';
import { PeerClient, TlsPins, type PeerMessageCounter } from './client.js';
import { DeadLetterQueue } from './dlq.js';
import { buildHello } from './envelope.js';
import { MAX_BATCH_ENVELOPES } from './batcher.js';
import { DEFAULT_MESSAGES_PER_KEY_PER_MINUTE, PeerInbound, refuse, type InboundResult } from './inbound.js';
import { Outbox } from './outbox.js';
import { PeerRouteFetch } from './route-fetch.js';
import { STREAM_PATH, STREAM_PROTOCOL } from './frames.js';
import { serveStream, type ServedStream, type StreamAnswer } from './stream-server.js';
import { kindOfAddress, type Transport } from './transport.js';
import { createPeerTransports, type PeerTransports } from './transport-select.js';

const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Frames one stream has in handling at once: a batcher's exchanges to one node, with room to spare. */
const MAX_STREAM_IN_FLIGHT = 32;
/**
 * An idle stream is closed after this. Longer than a client keeps one idle (transport-stream.ts), so the client is the
 * one to close it and never writes a frame on a stream that is being closed under it.
 */
const STREAM_IDLE_MS = 120_000;
/** Like a whole HTTP request: a frame must arrive within this once it started. */
const STREAM_FRAME_MS = REQUEST_TIMEOUT_MS;

const transportsDown = (): InboundResult => refuse(503, 'transports_down', "this node's transports are down");

const pathOf = (url: string | undefined): string | undefined => {
  const q = url?.indexOf('?') ?? -1;
  return q === -1 ? url : url!.slice(0, q);
};

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export interface PeerLayerDeps {
  db: Db;
  tx: TxRunner;
  identity: Identity;
  addresses: () => NodeAddresses;
  version: string;
  /** The settings registry's `get` (transport timeouts, fallbacks, Tor circuit settings). */
  settings: (key: string) => unknown;
  torSocks: { host: string; port: number };
  /** The node's clock (ms): Tor circuit cooldowns count on it, so a test shifts it past one instead of waiting. */
  now?: () => number;
  retired: () => boolean;
  /**
   * Reads message bodies. The node shares its REST pipeline's, so that one in-flight budget per client address
   * covers both; a layer of its own otherwise.
   */
  bodies?: BodyReader;
  /** The client address of a request (forwarding headers believed from trusted proxies only); the socket's by default. */
  clientAddress?: (req: IncomingMessage) => string;
  /** Messages per minute one sending key may have handled (p2pRateLimitPerMinute); Document 2's default when absent. */
  perKeyPerMinute?: () => number;
  log: Logger;
  /**
   * Hex SHA-256 of the HTTPS certificate the node serves now (it changes with the hostname setting), or null
   * without HTTPS; read for every hello, which signs it so that peers can re-pin safely.
   */
  tlsFingerprint?: () => string | null;
  /** Reaches peers through this instead of sockets (http and https addresses; Tor stays as it is). */
  httpTransport?: Transport;
  /** Told of every message sent or handled (metrics). */
  counted?: PeerMessageCounter;
}

/** The node-to-node message layer: inbound endpoint, client, outbox and dead letter queue. */
export class PeerLayer {
  readonly inbound: PeerInbound;
  readonly client: PeerClient;
  readonly outbox: Outbox;
  readonly dlq: DeadLetterQueue;
  readonly transports: PeerTransports;
  /** Plugins' own HTTP exchanges with their routes on peer nodes. */
  readonly routes: PeerRouteFetch;
  readonly #bodies: BodyReader;
  readonly #clientAddress: (req: IncomingMessage) => string;

  constructor(private readonly deps: PeerLayerDeps) {
    this.inbound = new PeerInbound(
      deps.db,
      deps.identity,
      deps.addresses,
      deps.retired,
      deps.perKeyPerMinute ?? (() => DEFAULT_MESSAGES_PER_KEY_PER_MINUTE),
      deps.log,
      { storage: deps.tx.storage, log: deps.log },
      deps.counted,
    );
    this.#bodies = deps.bodies ?? new BodyReader();
    this.#clientAddress = deps.clientAddress ?? ((req) => normalizeIp(req.socket.remoteAddress ?? ''));
    this.transports = createPeerTransports({
      torSocks: deps.torSocks,
      settings: deps.settings,
      ...(deps.httpTransport ? { http: deps.httpTransport } : {}),
      ...(deps.now ? { now: deps.now } : {}),
    });
    const pins = new TlsPins(deps.db);
    this.client = new PeerClient(deps.identity, deps.addresses, deps.settings, this.transports, pins, deps.log, deps.counted);
    this.routes = new PeerRouteFetch(pins);
    this.dlq = new DeadLetterQueue(deps.db, deps.log);
    this.outbox = new Outbox(deps.db, deps.tx, this.client, (m, type, reason, address) => this.dlq.park(m, type, reason, address), deps.log);
    this.dlq.attach(this.outbox);
  }

  /** Down: no exchange leaves, queued messages wait without spending retries, peers are refused. Up: they go at once. */
  setDown(down: boolean): void {
    this.client.down = down;
    this.outbox.hold(down);
  }

  /**
   * The two endpoints of the protocol, served straight from the HTTP server, before the REST pipeline: a peer
   * message needs none of the REST machinery (HMAC keys, envelopes, CORS, routing), and it is the hot path
   * between nodes. Returns false for any other request.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const path = pathOf(req.url);
    if (this.client.down && (path === '/peer/v1/message' || path === '/peer/v1/hello')) {
      const answer = transportsDown();
      reply(res, answer.status, answer.body);
      dropUnreadBodyLater(req);
      return true;
    }
    if (path === '/peer/v1/message' && req.method === 'POST') {
      void this.#message(req, res);
      return true;
    }
    if (path === '/peer/v1/hello' && req.method === 'GET') {
      reply(res, 200, buildHello(this.deps.identity, this.deps.addresses(), this.deps.version, Date.now(), this.deps.tlsFingerprint?.() ?? null));
      return true;
    }
    return false;
  }

  /**
   * A peer stream: `GET /peer/v1/stream` asking to upgrade to wn-peer-frames/1 (frames.ts). Each frame is answered
   * like a `POST /peer/v1/message` with the same body, from the same client address. Null for any other upgrade
   * request, which the listener serves as an ordinary one.
   */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): ServedStream | null {
    if (pathOf(req.url) !== STREAM_PATH || req.method !== 'GET' || req.headers.upgrade?.toLowerCase() !== STREAM_PROTOCOL) return null;
    const address = this.#clientAddress(req);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${STREAM_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`);
    const refusal = (e: { status: number; code: string; message: string }): StreamAnswer => refuse(e.status, e.code, e.message);
    return serveStream(socket, head, {
      maxFrameBytes: MAX_MESSAGE_BYTES,
      maxInFlight: MAX_STREAM_IN_FLIGHT,
      idleMs: STREAM_IDLE_MS,
      frameMs: STREAM_FRAME_MS,
      hold: (bytes) => this.#bodies.take(address, bytes),
      overBudget: () => refusal(overBudget()),
      answer: async (raw) => (this.client.down ? transportsDown() : this.#answer(raw, address)),
      onError: (err) => this.deps.log.warn('peer stream failed', { error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /**
   * The body is one envelope, answered with its status and reply, or an array of envelopes (a batch from
   * MessageBatcher), answered 200 with one {status, body} per envelope in the same order.
   */
  async #message(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: InboundResult | { status: 200; body: InboundResult[] };
    const address = this.#clientAddress(req);
    try {
      answer = await this.#answer(await this.#bodies.read(req, MAX_MESSAGE_BYTES, address), address);
    } catch (err) {
      if (err instanceof ApiError) answer = refuse(err.status, err.code, err.message);
      else {
        // The request stream broke (the peer went away mid-body): nobody is left to read an answer.
        this.deps.log.warn('peer message not read', { error: err instanceof Error ? err.message : String(err) });
        answer = refuse(400, 'malformed', 'the body could not be read');
      }
    }
    if (!res.headersSent && !res.destroyed) reply(res, answer.status, answer.body);
    dropUnreadBodyLater(req);
  }

  async #answer(raw: Buffer, address: string): Promise<InboundResult | { status: 200; body: InboundResult[] }> {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      return refuse(400, 'malformed', 'body is not JSON');
    }
    if (!Array.isArray(json)) return this.#receive(json, address);
    if (json.length === 0 || json.length > MAX_BATCH_ENVELOPES) return refuse(400, 'malformed', `a batch holds 1 to ${MAX_BATCH_ENVELOPES} envelopes`);
    return { status: 200, body: await Promise.all(json.map((envelope) => this.#receive(envelope, address))) };
  }

  /** A failure inside one envelope's handling answers that envelope only, never the rest of its batch. */
  async #receive(envelope: unknown, address: string): Promise<InboundResult> {
    try {
      return await this.inbound.receive(envelope, address);
    } catch (err) {
      this.deps.log.error('peer message failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return refuse(500, 'internal_error', 'the message could not be processed; retry later');
    }
  }

  /** A plugin's view; what it registers is forgotten when `release` runs at unload. */
  forPlugin(owner: string): { api: PeerApi; release: () => void } {
    const hookTypes: string[] = [];
    const api: PeerApi = {
      handle: (type, handler) => this.inbound.handle(owner, type, handler),
      filter: (fn) => this.inbound.filter(owner, fn),
      // A key a plugin chooses to send to is one this node deals with: see PeerInbound.addressed.
      request: async (target, payload) => {
        if (target.pubkeyHash) this.inbound.addressed(target.pubkeyHash);
        const reply = await this.client.request(target, payload, `req_${owner}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`);
        this.inbound.addressed(reply.sender.pubkeyHash);
        return reply;
      },
      enqueue: (target, payload, options) => {
        if (target.pubkeyHash) this.inbound.addressed(target.pubkeyHash);
        return this.outbox.enqueue(target, payload, options?.messageId);
      },
      outcomes: (type, hooks) => {
        hookTypes.push(type);
        this.outbox.hooks(type, hooks);
      },
      deadLetter: (letter) => this.dlq.deadLetter(letter),
      resolveDeadLetter: (type, messageId, outcome) => this.dlq.resolveDeadLetter(type, messageId, outcome),
      hello: (address) => {
        const kind = kindOfAddress(address);
        if (!kind) throw new PeerDeliveryError('bad_address', `not a peer address: ${address}`, false);
        return this.client.hello({ [kind]: address });
      },
      firstAddress: (addresses) => this.client.firstAddress(addresses),
      fetch: (address, path, init) => this.routes.fetch(address, path, init),
    };
    return {
      api,
      release: () => {
        this.inbound.removeOwner(owner);
        this.outbox.removeHooks(hookTypes);
      },
    };
  }
}
