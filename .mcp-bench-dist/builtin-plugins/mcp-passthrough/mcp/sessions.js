/**
 * MCP sessions: one per customer key (an initialize from a key ends that key's earlier session), in memory, swept
 * after 30 minutes without a request. A session belongs to the key that created it: any other key gets the same
 * 404 as an unknown session, so session ids reveal nothing across customers. Ending a session (DELETE,
 * `session/end`, the sweep, a newer session of the key, the plugin stopping) aborts its calls in flight; what they
 * produced until then stays billed.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
export const SESSION_IDLE_MS = 30 * 60 * 1000;
export class Session {
    keyId;
    onEnd;
    id = randomUUID();
    transport;
    server = null;
    lastSeen;
    #initialized = false;
    #ended = false;
    #inflight = new Map();
    constructor(keyId, now, onEnd) {
        this.keyId = keyId;
        this.onEnd = onEnd;
        this.lastSeen = now;
        this.transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => this.id });
    }
    get ended() {
        return this.#ended;
    }
    initialized() {
        return this.#initialized;
    }
    markInitialized() {
        this.#initialized = true;
    }
    track(requestId, signal) {
        const ac = new AbortController();
        if (signal.aborted)
            ac.abort(signal.reason);
        else
            signal.addEventListener('abort', () => ac.abort(signal.reason), { once: true });
        this.#inflight.set(requestId, ac);
        return ac;
    }
    untrack(requestId) {
        this.#inflight.delete(requestId);
    }
    /** Aborts the named calls in flight (their HTTP connection closed before the answer). */
    abort(requestIds, reason) {
        for (const id of requestIds)
            this.#inflight.get(id)?.abort(reason);
    }
    busy() {
        return this.#inflight.size > 0;
    }
    endSoon() {
        // After the current answer: session/end is answered first, then the transport closes.
        setImmediate(() => void this.end('session ended by the client'));
    }
    async end(reason) {
        if (this.#ended)
            return;
        this.#ended = true;
        for (const ac of this.#inflight.values())
            ac.abort(reason);
        this.onEnd(this);
        await this.transport.close().catch(() => undefined);
        await this.server?.close().catch(() => undefined);
    }
}
export class Sessions {
    now;
    log;
    #byId = new Map();
    #byKey = new Map();
    constructor(now, log) {
        this.now = now;
        this.log = log;
    }
    /** A new session for the key; the key's earlier session ends. */
    open(keyId) {
        const previous = this.#byKey.get(keyId);
        if (previous)
            void previous.end('a newer session of the same key replaced it');
        const session = new Session(keyId, this.now(), (s) => this.#forget(s));
        this.#byId.set(session.id, session);
        this.#byKey.set(keyId, session);
        return session;
    }
    /** The session of this id when this key created it; null otherwise (unknown, swept, ended, or another key's). */
    get(id, keyId) {
        const s = this.#byId.get(id);
        return s && !s.ended && s.keyId === keyId ? s : null;
    }
    count() {
        return this.#byId.size;
    }
    /** Ends sessions idle for more than 30 minutes; a session with a call in flight is not idle. */
    async sweep() {
        const cutoff = this.now() - SESSION_IDLE_MS;
        const idle = [...this.#byId.values()].filter((s) => s.lastSeen < cutoff && !s.busy());
        for (const s of idle)
            await s.end('idle for 30 minutes');
        if (idle.length)
            this.log.debug('swept idle MCP sessions', { count: idle.length });
        return idle.length;
    }
    /** Ends the sessions of a key (revoked). */
    async endKey(keyId, reason) {
        await this.#byKey.get(keyId)?.end(reason);
    }
    async closeAll(reason) {
        await Promise.all([...this.#byId.values()].map((s) => s.end(reason)));
    }
    #forget(s) {
        this.#byId.delete(s.id);
        if (this.#byKey.get(s.keyId) === s)
            this.#byKey.delete(s.keyId);
    }
}
//# sourceMappingURL=sessions.js.map