/**
 * The OpenAI-compatible door: `POST /p/mcp-passthrough/v1/chat/completions` and `GET /p/mcp-passthrough/v1/models`,
 * so that OpenAI's SDKs and everything built on them buy from this node with a customer key as their API key. Behind
 * the door is the call of the MCP tool (CustomerApi.complete): the same keys, reservation, routing, federation,
 * failover, usage rows and charges; only the formats differ (request.ts, answer.ts, errors.ts).
 *
 * A streamed call answers its HTTP status when it knows it: at its first delta (200 and the event stream), or at its
 * end when it ends before any output, so a refusal or an upstream failing before output is a plain HTTP error the
 * client raises, as OpenAI's own are. A connection closed before the stream ended aborts the call (its output so far
 * stays billed, as on the MCP door). A whole call is not aborted by a closed connection: the route sees no socket.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { RawReply, type Logger, type RouteRequest } from '../../../sdk/index.js';
import { ToolFailure } from '../billing.js';
import type { CompletionResult } from '../inference.js';
import type { CustomerApi } from '../customer.js';
import type { Keys } from '../keys.js';
import { checkOrigin } from '../origins.js';
import type { KeyRow } from '../store.js';
import { ChunkWriter, wholeAnswer } from './answer.js';
import { failureReply, openAiError, unauthorized } from './errors.js';
import { parseOpenAiChat } from './request.js';

/** The usage rows' `tool` of calls through this door. */
export const OPENAI_TOOL = 'openai.chat.completions';

const SSE_HEADERS = { 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' };

type Admitted = { key: KeyRow; cors: Record<string, string> };

export class OpenAiDoor {
  constructor(
    private readonly keys: Keys,
    private readonly api: CustomerApi,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The bearer's key and the answer's CORS headers, or the refusal. */
  #admit(req: RouteRequest): Admitted | RawReply {
    const key = this.keys.authenticate(req.headers.authorization);
    if (!key) return unauthorized();
    const origin = checkOrigin(req.headers.origin, this.keys.effectiveOrigins(key));
    if (!origin.ok) return openAiError(403, 'permission_error', 'origin_not_allowed', `Origin not allowed: ${origin.origin}`);
    return { key, cors: origin.origin ? { 'Access-Control-Allow-Origin': origin.origin, Vary: 'Origin' } : {} };
  }

  models(req: RouteRequest): RawReply {
    const admitted = this.#admit(req);
    if (admitted instanceof RawReply) return admitted;
    const listed = this.api.listModels(admitted.key) as { models: { model: string; provider: string; in_price_per_1m: string; out_price_per_1m: string; xfer_price_per_gb: string }[]; currency: string };
    const seen = new Set<string>();
    const data = listed.models
      .filter((m) => !seen.has(m.model) && seen.add(m.model))
      .map((m) => ({
        id: m.model,
        object: 'model',
        created: 0,
        owned_by: m.provider,
        pricing: { in_per_1m: m.in_price_per_1m, out_per_1m: m.out_price_per_1m, xfer_per_gb: m.xfer_price_per_gb, currency: listed.currency },
      }));
    return new RawReply(JSON.stringify({ object: 'list', data }), 'application/json', 200, admitted.cors);
  }

  async chat(req: RouteRequest): Promise<RawReply> {
    const admitted = this.#admit(req);
    if (admitted instanceof RawReply) return admitted;
    const { key, cors } = admitted;
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(this.now() / 1000);
    try {
      let body: unknown;
      try {
        body = JSON.parse(req.rawBody.toString('utf8'));
      } catch {
        return openAiError(400, 'invalid_request_error', 'invalid_json', 'the body is not JSON', null, {}, cors);
      }
      const parsed = parseOpenAiChat(body);
      // The key as #admit just read it: nothing ran in between, so it is as fresh as a second read.
      if (!parsed.stream) {
        const r = await this.api.complete(key, parsed.args, { tool: OPENAI_TOOL, callId: id, cancel: new AbortController().signal });
        return new RawReply(JSON.stringify(wholeAnswer(id, created, r)), 'application/json', 200, cors);
      }
      return await this.#stream(key, parsed, id, created, cors);
    } catch (err) {
      if (err instanceof ToolFailure) return failureReply(err, cors);
      this.log.error('OpenAI-compatible call failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return openAiError(500, 'server_error', 'internal_error', 'the call failed on the node', null, {}, cors);
    }
  }

  async #stream(key: KeyRow, parsed: ReturnType<typeof parseOpenAiChat>, id: string, created: number, cors: Record<string, string>): Promise<RawReply> {
    const abort = new AbortController();
    let finished = false;
    const out = new Readable({
      read() {},
      destroy(err, callback) {
        if (!finished) abort.abort();
        callback(err);
      },
    });
    // Chunks before the end name the model asked for (the active one when none was named); the last ones, the one that served.
    const writer = new ChunkWriter(id, created, parsed.args.model ?? String(this.api.activeProvider().active_model ?? ''), parsed.includeUsage);
    let firstDelta: () => void = () => undefined;
    const started = new Promise<'output'>((resolve) => (firstDelta = () => resolve('output')));
    // The events of one upstream read leave in one write: an upstream packet of twenty deltas was sixty socket writes.
    let pending = '';
    const flush = (): void => {
      if (pending) out.push(pending);
      pending = '';
    };
    const send = (events: string): void => {
      if (!pending) queueMicrotask(flush);
      pending += events;
      firstDelta();
    };
    const call = this.api.complete(key, parsed.args, {
      tool: OPENAI_TOOL,
      callId: id,
      cancel: abort.signal,
      onDelta: (text) => send(writer.delta(text)),
      onToolCall: (d) => send(writer.toolCall(d)),
    });
    const ended = call.then(
      (r): { r: CompletionResult } => ({ r }),
      (err: unknown): { err: unknown } => ({ err }),
    );
    const first = await Promise.race([started, ended]);
    if (first !== 'output' && 'err' in first) {
      finished = true;
      out.destroy();
      throw first.err;
    }
    void ended.then((e) => {
      finished = true;
      flush();
      if ('r' in e) out.push(writer.end(e.r));
      else {
        // Billed already, or refused before output: only a fault on the node lands here after the stream began.
        this.log.error('OpenAI-compatible stream failed', { error: e.err instanceof Error ? e.err.message : String(e.err) });
        const f = e.err instanceof ToolFailure ? e.err : null;
        out.push(`data: ${JSON.stringify({ error: { message: f?.message ?? 'the call failed on the node', type: 'server_error', param: null, code: f?.code ?? 'internal_error' } })}\n\n`);
      }
      out.push(null);
    });
    return new RawReply(out, 'text/event-stream', 200, { ...SSE_HEADERS, ...cors });
  }
}
