/**
 * `/p/mcp-passthrough/mcp`: the Streamable HTTP transport of MCP behind the node's public route pipeline.
 *
 * The host has already applied the route's limits (rate per bearer, body size, public switch) and read the body.
 * This module authenticates the bearer (401), applies the Origin rules (403), finds or opens the session (404 for
 * one that is unknown, swept or another key's), and hands the parsed message to the SDK's web-standard transport;
 * the transport's `Response` goes back as a RawReply, its event stream piped through as it is written. No raw
 * Node request or response is needed, so the kernel's pipeline stays the one door.
 *
 * A closed connection does not cancel an MCP request by itself (the SDK only stops writing); for a billed call
 * that would leave the upstream generating for nobody, so when the answer's stream is destroyed before it ended,
 * the tool calls of that POST are aborted here (their output so far stays billed).
 */
import { Readable } from 'node:stream';
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RawReply, type Logger, type RouteRequest } from '../../../sdk/index.js';
import type { CustomerApi } from '../customer.js';
import type { Keys } from '../keys.js';
import type { KeyRow } from '../store.js';
import { checkOrigin } from '../origins.js';
import { BILLED_TOOL } from './catalog.js';
import { buildServer, RPC } from './server.js';
import type { Session, Sessions } from './sessions.js';

/** Document 2: the protocol revisions served, newest first; an unknown requested revision gets the first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** Request headers the transport reads; nothing else (the bearer included) is handed to it. */
const FORWARDED = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];

const EXPOSED = 'Mcp-Session-Id, MCP-Protocol-Version';
const ENDPOINT_URL = 'http://node.invalid/p/mcp-passthrough/mcp';

function rpcError(status: number, code: number, message: string, extra: { data?: unknown; headers?: Record<string, string>; id?: string | number } = {}): RawReply {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(extra.data !== undefined ? { data: extra.data } : {}) }, id: extra.id ?? null });
  return new RawReply(body, 'application/json', status, extra.headers ?? {});
}

function header(req: RouteRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export class McpEndpoint {
  constructor(
    private readonly keys: Keys,
    private readonly sessions: Sessions,
    private readonly api: CustomerApi,
    private readonly version: string,
    private readonly log: Logger,
    private readonly now: () => number,
    /** The most sessions a key may hold at once (limits.ts). */
    private readonly sessionLimit: (key: KeyRow) => number,
  ) {}

  async handle(req: RouteRequest): Promise<RawReply> {
    const key = this.keys.authenticate(req.headers.authorization);
    if (!key) {
      return rpcError(401, RPC.unauthorized, 'Unauthorized: a valid customer bearer token is required', {
        data: { code: 'unauthorized' },
        headers: { 'WWW-Authenticate': 'Bearer realm="mcp-passthrough"' },
      });
    }
    const origin = checkOrigin(req.headers.origin, this.keys.effectiveOrigins(key));
    if (!origin.ok) return rpcError(403, RPC.originRefused, `Origin not allowed: ${origin.origin}`, { data: { code: 'origin_not_allowed' } });
    const cors: Record<string, string> = origin.origin
      ? { 'Access-Control-Allow-Origin': origin.origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' }
      : {};
    const withCors = (r: RawReply): RawReply => new RawReply(r.body, r.contentType, r.status, { ...r.headers, ...cors });

    const lastEventId = header(req, 'last-event-id');
    if (req.method === 'GET' && lastEventId === undefined) {
      return withCors(rpcError(405, -32000, 'Method not allowed: this server offers no standalone event stream', { headers: { Allow: 'POST, DELETE' } }));
    }
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
      return withCors(rpcError(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${PROTOCOL_VERSIONS.join(', ')})`));
    }
    const sid = header(req, 'mcp-session-id');

    if (req.method === 'GET') {
      // A dropped event stream resumed: the rest of its events, once (events.ts keeps them for the window).
      if (!sid) return withCors(rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required'));
      const session = this.sessions.get(sid, key.id);
      if (!session) return withCors(rpcError(404, RPC.sessionNotFound, 'Session not found'));
      session.lastSeen = this.now();
      // The client says its link is gone even if this side has not noticed yet: the old connection gives way.
      const stream = await session.events.getStreamIdForEventId(lastEventId!);
      if (stream) for (const id of session.events.calls(stream)) session.transport.closeSSEStream(id);
      const response = await session.transport.handleRequest(new Request(ENDPOINT_URL, { method: 'GET', headers: this.#forwarded(req) }));
      return this.#reply(response, session, null, cors);
    }

    if (req.method === 'DELETE') {
      if (!sid) return withCors(rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required'));
      const session = this.sessions.get(sid, key.id);
      if (!session) return withCors(rpcError(404, RPC.sessionNotFound, 'Session not found'));
      await session.end('deleted by the client');
      return withCors(new RawReply('', 'text/plain', 204));
    }

    let body: unknown;
    try {
      body = JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      return withCors(rpcError(400, -32700, 'Parse error: Invalid JSON'));
    }
    const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
    const init = messages.find((m) => isInitializeRequest(m));
    let session: Session;
    if (init) {
      if (messages.length > 1) return withCors(rpcError(400, -32600, 'Invalid Request: Only one initialization request is allowed'));
      // Negotiation of Document 2: an unknown revision is answered with the newest one we serve.
      if (!(PROTOCOL_VERSIONS as readonly string[]).includes(init.params.protocolVersion)) init.params.protocolVersion = PROTOCOL_VERSIONS[0];
      // A stale Mcp-Session-Id beside an initialize is ignored: the client starts over, as after a 404.
      session = this.sessions.open(key.id, this.sessionLimit(key));
      session.server = buildServer(session, this.api, this.version, this.log);
      session.transport.onerror = (err) => this.log.debug('MCP transport', { error: err.message });
      await session.server.connect(session.transport);
    } else {
      if (!sid) return withCors(rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required'));
      const found = this.sessions.get(sid, key.id);
      if (!found) return withCors(rpcError(404, RPC.sessionNotFound, 'Session not found'));
      session = found;
      const refused = this.#overLimit(key, messages);
      if (refused) return withCors(refused);
    }
    session.lastSeen = this.now();

    const response = await session.transport.handleRequest(new Request(ENDPOINT_URL, { method: 'POST', headers: this.#forwarded(req) }), { parsedBody: body });
    if (init && response.status !== 200) await session.end('initialize refused');
    const requestIds = messages.filter((m) => isJSONRPCRequest(m)).map((m) => (m as { id: string | number }).id);
    return this.#reply(response, session, requestIds, cors);
  }

  /**
   * A lone billed tools/call over one of the key's limits, answered before it reaches the transport (whose answers are
   * all 200): 429 with Retry-After, so HTTP clients and proxies see the limit, and as body the JSON-RPC error the tool
   * would give, so MCP clients read the same code and data. A batch keeps the error inside its 200, so its other
   * messages are not refused with it; so does a call that a concurrent one pushes over the limit after this check.
   */
  #overLimit(key: KeyRow, messages: JSONRPCMessage[]): RawReply | null {
    const [m] = messages;
    if (messages.length !== 1 || !m || !isJSONRPCRequest(m) || m.method !== 'tools/call' || m.params?.name !== BILLED_TOOL) return null;
    const refusal = this.api.limitRefusal(key);
    if (!refusal) return null;
    return rpcError(429, RPC.rateLimited, refusal.message, {
      id: m.id,
      data: { code: refusal.code, ...refusal.data },
      headers: { 'Retry-After': String(refusal.data.retry_after) },
    });
  }

  #forwarded(req: RouteRequest): Headers {
    const headers = new Headers();
    for (const name of FORWARDED) {
      const v = header(req, name);
      if (v !== undefined) headers.set(name, v);
    }
    return headers;
  }

  /**
   * The transport's answer as a RawReply. `requestIds`: the calls a POST's stream answers (null for a resumed stream,
   * whose calls the event store knows). A resumable stream (its first event has an id) that drops leaves its calls
   * running for the resume window; any other aborts them at once.
   */
  async #reply(response: Response, session: Session, requestIds: (string | number)[] | null, cors: Record<string, string>): Promise<RawReply> {
    const headers: Record<string, string> = { ...cors };
    response.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'connection') headers[name] = value;
    });
    const type = response.headers.get('content-type') ?? 'application/json';
    if (!response.body) return new RawReply('', type, response.status, headers);
    if (!type.startsWith('text/event-stream')) return new RawReply(Buffer.from(await response.arrayBuffer()), type, response.status, headers);
    const reader = response.body.getReader();
    const touch = (): void => void (session.lastSeen = this.now());
    const now = this.now;
    let finished = false;
    /** The stream's id in the event store, from the id of its first event; null when it is not resumable. */
    let streamId: string | null | undefined;
    const learn = (chunk: Uint8Array): void => {
      if (streamId !== undefined) return;
      const id = /^id: (\S+)$/m.exec(Buffer.from(chunk).toString('utf8'))?.[1];
      streamId = id ? id.slice(0, id.lastIndexOf('.')) : null;
      if (streamId && requestIds) session.events.answers(streamId, requestIds);
    };
    const windowMs = this.sessions.resumeWindowMs;
    const stream = new Readable({
      read() {
        reader.read().then(
          ({ done, value }) => {
            if (done) {
              finished = true;
              // A long call keeps its session alive until its answer is out, not only from its start.
              touch();
              this.push(null);
            } else {
              learn(value);
              this.push(Buffer.from(value));
            }
          },
          (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
        );
      },
      destroy(err, callback) {
        if (!finished) {
          if (streamId) session.detached(streamId, windowMs(), now());
          else session.abort(requestIds ?? [], 'the client closed the connection');
          reader.cancel().catch(() => undefined);
        }
        callback(err);
      },
    });
    return new RawReply(stream, type, response.status, headers);
  }
}
