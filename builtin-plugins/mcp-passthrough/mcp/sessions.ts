/**
 * MCP sessions: up to the key's session limit each (one by default; an initialize beyond it ends the key's session
 * that was used least recently), in memory, swept
 * after 30 minutes without a request. A session belongs to the key that created it: any other key gets the same
 * 404 as an unknown session, so session ids reveal nothing across customers. Ending a session (DELETE,
 * `session/end`, the sweep, a newer session of the key, the plugin stopping) aborts its calls in flight; what they
 * produced until then stays billed.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Logger } from '../../../sdk/index.js';
import { SessionEvents } from './events.js';
import type { SessionHooks } from './server.js';

export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** How long a dropped event stream may be resumed (its events kept, its calls kept running). */
export const RESUME_WINDOW_MS = 60_000;

export class Session implements SessionHooks {
  readonly id = randomUUID();
  readonly transport: WebStandardStreamableHTTPServerTransport;
  server: Server | null = null;
  lastSeen: number;
  #initialized = false;
  #ended = false;
  readonly #inflight = new Map<string | number, AbortController>();

  /** What its event streams wrote, for clients that reconnect with Last-Event-ID (events.ts). */
  readonly events: SessionEvents;

  constructor(
    readonly keyId: number,
    now: () => number,
    resumeWindowMs: () => number,
    private readonly onEnd: (s: Session) => void,
  ) {
    this.lastSeen = now();
    this.events = new SessionEvents(resumeWindowMs, now);
    this.transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => this.id, eventStore: this.events });
  }

  get ended(): boolean {
    return this.#ended;
  }

  initialized(): boolean {
    return this.#initialized;
  }

  markInitialized(): void {
    this.#initialized = true;
  }

  track(requestId: string | number, signal: AbortSignal): AbortController {
    const ac = new AbortController();
    if (signal.aborted) ac.abort(signal.reason);
    else signal.addEventListener('abort', () => ac.abort(signal.reason), { once: true });
    this.#inflight.set(requestId, ac);
    return ac;
  }

  untrack(requestId: string | number): void {
    this.#inflight.delete(requestId);
  }

  /** Aborts the named calls in flight (their HTTP connection closed before the answer). */
  abort(requestIds: readonly (string | number)[], reason: string): void {
    for (const id of requestIds) this.#inflight.get(id)?.abort(reason);
  }

  /**
   * A resumable stream's connection dropped: its calls go on for the resume window, and are aborted then unless the
   * client reconnected with Last-Event-ID meanwhile (their output so far stays billed either way).
   */
  detached(stream: string, windowMs: number, now: number): void {
    const calls = this.events.calls(stream);
    if (!calls.some((id) => this.#inflight.has(id))) return;
    const timer = setTimeout(() => {
      if (!this.events.resumedSince(stream, now)) this.abort(calls, 'the client closed the connection and did not resume it');
    }, windowMs);
    timer.unref();
  }

  busy(): boolean {
    return this.#inflight.size > 0;
  }

  endSoon(): void {
    // After the current answer: session/end is answered first, then the transport closes.
    setImmediate(() => void this.end('session ended by the client'));
  }

  async end(reason: string): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    for (const ac of this.#inflight.values()) ac.abort(reason);
    this.onEnd(this);
    await this.transport.close().catch(() => undefined);
    await this.server?.close().catch(() => undefined);
  }
}

export class Sessions {
  readonly #byId = new Map<string, Session>();
  readonly #byKey = new Map<number, Set<Session>>();

  constructor(
    private readonly now: () => number,
    private readonly log: Logger,
    readonly resumeWindowMs: () => number = () => RESUME_WINDOW_MS,
  ) {}

  /** A new session for the key; beyond `max`, the key's least recently used sessions end. */
  open(keyId: number, max = 1): Session {
    const own = this.#byKey.get(keyId) ?? new Set<Session>();
    const oldest = [...own].sort((a, b) => a.lastSeen - b.lastSeen).slice(0, Math.max(0, own.size - max + 1));
    for (const s of oldest) {
      own.delete(s);
      void s.end('a newer session of the same key replaced it');
    }
    const session = new Session(keyId, this.now, this.resumeWindowMs, (s) => this.#forget(s));
    this.#byId.set(session.id, session);
    own.add(session);
    this.#byKey.set(keyId, own);
    return session;
  }

  /** The session of this id when this key created it; null otherwise (unknown, swept, ended, or another key's). */
  get(id: string, keyId: number): Session | null {
    const s = this.#byId.get(id);
    return s && !s.ended && s.keyId === keyId ? s : null;
  }

  count(): number {
    return this.#byId.size;
  }

  /** Ends sessions idle for more than 30 minutes; a session with a call in flight is not idle. */
  async sweep(): Promise<number> {
    const cutoff = this.now() - SESSION_IDLE_MS;
    const idle = [...this.#byId.values()].filter((s) => s.lastSeen < cutoff && !s.busy());
    for (const s of idle) await s.end('idle for 30 minutes');
    if (idle.length) this.log.debug('swept idle MCP sessions', { count: idle.length });
    return idle.length;
  }

  /** Ends the sessions of a key (revoked). */
  async endKey(keyId: number, reason: string): Promise<void> {
    await Promise.all([...(this.#byKey.get(keyId) ?? [])].map((s) => s.end(reason)));
  }

  async closeAll(reason: string): Promise<void> {
    await Promise.all([...this.#byId.values()].map((s) => s.end(reason)));
  }

  #forget(s: Session): void {
    this.#byId.delete(s.id);
    const own = this.#byKey.get(s.keyId);
    own?.delete(s);
    if (own?.size === 0) this.#byKey.delete(s.keyId);
  }
}
