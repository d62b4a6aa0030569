/**
 * One HTTP call to an upstream, whole or streamed. It never throws: the outcome says what came back (text, the
 * usage the upstream reported, bytes both ways) and, when the call did not finish, why, so that billing can charge
 * what was produced before a failure, a cancellation or the deadline.
 *
 * node:http(s) with keep-alive agents, not `ctx.kernel.outbound`: inference needs the answer as it streams, and pooled
 * connections (the outbound mechanism buffers whole answers on one connection per request, right for its rare calls,
 * not for a proxy whose added latency is measured in milliseconds). Not fetch either: its WHATWG streams cost about
 * as much again per call as the rest of the passthrough.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { addToolCallDelta, type ProviderPreset, type StreamItem, type ToolCall, type ToolCallDelta, type UpstreamCall } from './protocol.js';

/** A whole (non-streamed) answer larger than this is refused: no chat completion comes near it. */
export const MAX_WHOLE_ANSWER_BYTES = 16 * 1024 * 1024;
/** An error body is read up to this for its message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export type FailureCode = 'cancelled' | 'upstream_timeout' | 'upstream_unreachable' | 'upstream_error';

export interface CallFailure {
  code: FailureCode;
  message: string;
  /** The upstream's HTTP status when it answered with an error. */
  status?: number;
}

export interface CallOutcome {
  text: string;
  /** Calls of the customer's tools in the answer. */
  toolCalls: ToolCall[];
  /** Text and tool-call pieces received (streamed calls). */
  deltas: number;
  inputTokens: number | null;
  outputTokens: number | null;
  finishReason: string | null;
  requestBytes: number;
  responseBytes: number;
  failure: CallFailure | null;
}

export interface CallOptions {
  /** Aborted when the customer cancels (notifications/cancelled, a closed connection, the session ending). */
  cancel: AbortSignal;
  /** Aborted at the request deadline. */
  deadline: AbortSignal;
  onDelta?: (text: string) => void;
  /** With `onDelta`: the pieces of tool calls as they come. */
  onToolCall?: (delta: ToolCallDelta) => void;
}

/** Upstream URLs kept parsed at most (providers and sellers are few; past it, all are parsed again). */
const MAX_TARGETS = 256;

/** Connection pools of one plugin load; `close` drops them (the plugin stopping). */
export class UpstreamAgents {
  readonly http = new http.Agent({ keepAlive: true, maxSockets: 256 });
  readonly https = new https.Agent({ keepAlive: true, maxSockets: 256 });
  readonly #targets = new Map<string, { secure: boolean; options: http.RequestOptions }>();

  /** A URL's request options, parsed once: every call posts to one of a few endpoints. Throws on a malformed URL. */
  target(url: string): { secure: boolean; options: http.RequestOptions } {
    let t = this.#targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { secure: u.protocol === 'https:', options: urlToHttpOptions(u) };
      if (this.#targets.size >= MAX_TARGETS) this.#targets.clear();
      this.#targets.set(url, t);
    }
    return t;
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

function post(agents: UpstreamAgents, url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let target: ReturnType<UpstreamAgents['target']>;
    try {
      target = agents.target(url);
    } catch (err) {
      reject(err);
      return;
    }
    const { secure } = target;
    const req = (secure ? https : http).request(
      {
        ...target.options,
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        // Uncompressed: the stream is parsed as it arrives, and transfer is metered as received.
        headers: { ...headers, 'accept-encoding': 'identity', 'content-length': String(Buffer.byteLength(body, 'utf8')) },
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The whole body, or null past `cap` (the response destroyed). Listeners, not an async iterator: half its cost per call. */
function readCapped(res: IncomingMessage, cap: number, counted: (n: number) => void): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      counted(chunk.length);
      if (size > cap) {
        res.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    res.once('end', () => resolve(Buffer.concat(chunks)));
    // An aborted or failed read rejects, as the iterator did; after a resolve it changes nothing.
    res.once('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(new Error('the upstream closed the answer before its end'));
    });
  });
}

function parseJson(buf: Buffer | null): unknown {
  if (!buf) return null;
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return null;
  }
}

/** An outcome before anything came back. */
export function emptyOutcome(requestBytes = 0): CallOutcome {
  return { text: '', toolCalls: [], deltas: 0, inputTokens: null, outputTokens: null, finishReason: null, requestBytes, responseBytes: 0, failure: null };
}

export async function callUpstream(agents: UpstreamAgents, preset: ProviderPreset, call: UpstreamCall, options: CallOptions): Promise<CallOutcome> {
  const spec = preset.protocol.request(call);
  const out = emptyOutcome(Buffer.byteLength(spec.body, 'utf8'));
  // One signal for the request, released when the call ends (AbortSignal.any keeps its sources' listeners longer).
  const combined = new AbortController();
  const stop = (): void => combined.abort();
  if (options.cancel.aborted || options.deadline.aborted) combined.abort();
  options.cancel.addEventListener('abort', stop, { once: true });
  options.deadline.addEventListener('abort', stop, { once: true });
  try {
    return await exchange(agents, preset, call, options, out, spec, combined.signal);
  } finally {
    options.cancel.removeEventListener('abort', stop);
    options.deadline.removeEventListener('abort', stop);
  }
}

async function exchange(
  agents: UpstreamAgents,
  preset: ProviderPreset,
  call: UpstreamCall,
  options: CallOptions,
  out: CallOutcome,
  spec: { url: string; headers: Record<string, string>; body: string },
  signal: AbortSignal,
): Promise<CallOutcome> {
  const aborted = (): CallFailure | null => {
    if (options.cancel.aborted) return { code: 'cancelled', message: 'the call was cancelled' };
    if (options.deadline.aborted) return { code: 'upstream_timeout', message: 'the upstream did not answer within the request timeout' };
    return null;
  };
  const counted = (n: number): void => void (out.responseBytes += n);

  let res: IncomingMessage;
  try {
    res = await post(agents, spec.url, spec.headers, spec.body, signal);
  } catch (err) {
    out.failure = aborted() ?? { code: 'upstream_unreachable', message: `the upstream could not be reached (${causeOf(err)})` };
    return out;
  }

  try {
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const body = parseJson(await readCapped(res, MAX_ERROR_BODY_BYTES, counted).catch(() => null));
      const said = preset.protocol.errorMessage(body);
      out.failure = { code: 'upstream_error', status, message: `the upstream answered HTTP ${status}${said ? `: ${said}` : ''}` };
      return out;
    }
    const type = res.headers['content-type'] ?? '';
    if (!call.stream || !type.includes('text/event-stream')) {
      const raw = await readCapped(res, MAX_WHOLE_ANSWER_BYTES, counted);
      if (!raw) {
        out.failure = { code: 'upstream_error', message: `the upstream answer exceeds ${MAX_WHOLE_ANSWER_BYTES} bytes` };
        return out;
      }
      const body = parseJson(raw);
      const answer = preset.protocol.parse(body);
      const toolCalls = answer.toolCalls ?? [];
      const said = body !== null && !answer.text && !toolCalls.length && answer.usage.outputTokens === null ? preset.protocol.errorMessage(body) : null;
      if (body === null || said) {
        out.failure = { code: 'upstream_error', message: said ? `the upstream reported: ${said}` : 'the upstream answer is not JSON' };
        return out;
      }
      out.text = answer.text;
      out.toolCalls = toolCalls;
      out.inputTokens = answer.usage.inputTokens;
      out.outputTokens = answer.usage.outputTokens;
      out.finishReason = answer.finishReason;
      if (out.text && options.onDelta) {
        out.deltas = 1;
        options.onDelta(out.text);
      }
      for (const [index, c] of toolCalls.entries()) options.onToolCall?.({ index, id: c.id, name: c.function.name, arguments: c.function.arguments });
      return out;
    }
    await readStream(preset, res, out, options, counted);
    return out;
  } catch (err) {
    out.failure = aborted() ?? { code: 'upstream_error', message: `the upstream connection failed (${causeOf(err)})` };
    return out;
  }
}

async function readStream(
  preset: ProviderPreset,
  body: IncomingMessage,
  out: CallOutcome,
  options: CallOptions,
  counted: (n: number) => void,
): Promise<void> {
  const decoder = preset.protocol.streamDecoder();
  let done = false;
  const apply = (item: StreamItem): void => {
    switch (item.type) {
      case 'delta':
        out.text += item.text;
        out.deltas++;
        options.onDelta?.(item.text);
        break;
      case 'tool_call': {
        const { type: _, ...delta } = item;
        addToolCallDelta(out.toolCalls, delta);
        out.deltas++;
        options.onToolCall?.(delta);
        break;
      }
      case 'usage':
        if (item.inputTokens !== undefined) out.inputTokens = item.inputTokens;
        if (item.outputTokens !== undefined) out.outputTokens = item.outputTokens;
        break;
      case 'finish':
        out.finishReason = item.reason;
        break;
      case 'error':
        out.failure ??= { code: 'upstream_error', message: `the upstream reported: ${item.message}` };
        break;
      case 'done':
        done = true;
        break;
    }
  };
  const parser = createParser({ onEvent: (event) => decoder.decode(event).forEach(apply) });
  const text = new StringDecoder('utf8');
  for await (const chunk of body as AsyncIterable<Buffer>) {
    counted(chunk.length);
    parser.feed(text.write(chunk));
    // Read on past the last event to the body's end: leaving early would cost the pooled connection.
    if (out.failure) {
      body.destroy();
      break;
    }
  }
  if (!done && !out.failure && out.finishReason === null) {
    out.failure = { code: 'upstream_error', message: 'the upstream stream ended before the answer was complete' };
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}
