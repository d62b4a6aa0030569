import { ApiError, PeerDeliveryError } from '../../sdk/index.js';
import { BodyReader, dropUnreadBodyLater } from '../http/body.js';
import { normalizeIp } from '../net/proxies.js';
import { PeerClient, TlsPins } from './client.js';
import { DeadLetterQueue } from './dlq.js';
import { buildHello } from './envelope.js';
import { MAX_BATCH_ENVELOPES } from './batcher.js';
import { DEFAULT_MESSAGES_PER_KEY_PER_MINUTE, PeerInbound, refuse } from './inbound.js';
import { Outbox } from './outbox.js';
import { kindOfAddress } from './transport.js';
import { createPeerTransports } from './transport-select.js';
const MAX_MESSAGE_BYTES = 1024 * 1024;
function reply(res, status, body) {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
}
/** The node-to-node message layer: inbound endpoint, client, outbox and dead letter queue. */
export class PeerLayer {
    deps;
    inbound;
    client;
    outbox;
    dlq;
    transports;
    #bodies;
    #clientAddress;
    constructor(deps) {
        this.deps = deps;
        this.inbound = new PeerInbound(deps.db, deps.identity, deps.addresses, deps.retired, deps.perKeyPerMinute ?? (() => DEFAULT_MESSAGES_PER_KEY_PER_MINUTE), deps.log);
        this.#bodies = deps.bodies ?? new BodyReader();
        this.#clientAddress = deps.clientAddress ?? ((req) => normalizeIp(req.socket.remoteAddress ?? ''));
        this.transports = createPeerTransports({ torSocks: deps.torSocks, settings: deps.settings });
        this.client = new PeerClient(deps.identity, deps.addresses, deps.settings, this.transports, new TlsPins(deps.db), deps.log);
        this.dlq = new DeadLetterQueue(deps.db, deps.log);
        this.outbox = new Outbox(deps.db, deps.tx, this.client, (m, type, reason, address) => this.dlq.park(m, type, reason, address), deps.log);
        this.dlq.attach(this.outbox);
    }
    /** Down: no exchange leaves, queued messages wait without spending retries, peers are refused. Up: they go at once. */
    setDown(down) {
        this.client.down = down;
        this.outbox.hold(down);
    }
    /**
     * The two endpoints of the protocol, served straight from the HTTP server, before the REST pipeline: a peer
     * message needs none of the REST machinery (HMAC keys, envelopes, CORS, routing), and it is the hot path
     * between nodes. Returns false for any other request.
     */
    serve(req, res) {
        const q = req.url?.indexOf('?') ?? -1;
        const path = q === -1 ? req.url : req.url.slice(0, q);
        if (this.client.down && (path === '/peer/v1/message' || path === '/peer/v1/hello')) {
            const answer = refuse(503, 'transports_down', "this node's transports are down");
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
     * The body is one envelope, answered with its status and reply, or an array of envelopes (a batch from
     * MessageBatcher), answered 200 with one {status, body} per envelope in the same order.
     */
    async #message(req, res) {
        let answer;
        const address = this.#clientAddress(req);
        try {
            answer = await this.#answer(await this.#bodies.read(req, MAX_MESSAGE_BYTES, address), address);
        }
        catch (err) {
            if (err instanceof ApiError)
                answer = refuse(err.status, err.code, err.message);
            else {
                // The request stream broke (the peer went away mid-body): nobody is left to read an answer.
                this.deps.log.warn('peer message not read', { error: err instanceof Error ? err.message : String(err) });
                answer = refuse(400, 'malformed', 'the body could not be read');
            }
        }
        if (!res.headersSent && !res.destroyed)
            reply(res, answer.status, answer.body);
        dropUnreadBodyLater(req);
    }
    async #answer(raw, address) {
        let json;
        try {
            json = JSON.parse(raw.toString('utf8'));
        }
        catch {
            return refuse(400, 'malformed', 'body is not JSON');
        }
        if (!Array.isArray(json))
            return this.#receive(json, address);
        if (json.length === 0 || json.length > MAX_BATCH_ENVELOPES)
            return refuse(400, 'malformed', `a batch holds 1 to ${MAX_BATCH_ENVELOPES} envelopes`);
        return { status: 200, body: await Promise.all(json.map((envelope) => this.#receive(envelope, address))) };
    }
    /** A failure inside one envelope's handling answers that envelope only, never the rest of its batch. */
    async #receive(envelope, address) {
        try {
            return await this.inbound.receive(envelope, address);
        }
        catch (err) {
            this.deps.log.error('peer message failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
            return refuse(500, 'internal_error', 'the message could not be processed; retry later');
        }
    }
    /** A plugin's view; what it registers is forgotten when `release` runs at unload. */
    forPlugin(owner) {
        const hookTypes = [];
        const api = {
            handle: (type, handler) => this.inbound.handle(owner, type, handler),
            filter: (fn) => this.inbound.filter(owner, fn),
            // A key a plugin chooses to send to is one this node deals with: see PeerInbound.addressed.
            request: async (target, payload) => {
                if (target.pubkeyHash)
                    this.inbound.addressed(target.pubkeyHash);
                const reply = await this.client.request(target, payload, `req_${owner}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`);
                this.inbound.addressed(reply.sender.pubkeyHash);
                return reply;
            },
            enqueue: (target, payload, options) => {
                if (target.pubkeyHash)
                    this.inbound.addressed(target.pubkeyHash);
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
                if (!kind)
                    throw new PeerDeliveryError('bad_address', `not a peer address: ${address}`, false);
                return this.client.hello({ [kind]: address });
            },
            firstAddress: (addresses) => this.client.firstAddress(addresses),
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
//# sourceMappingURL=layer.js.map