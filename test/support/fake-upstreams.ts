/**
 * Fake LLM upstreams on loopback: an OpenAI-compatible `/v1/chat/completions` and an Anthropic `/v1/messages` on
 * one server. Answers whole or streamed (server-sent events, usage at the end as each API sends it), and misbehaves
 * on request: per model id a test sets a behaviour (an HTTP error before output, an error event mid-stream, a stall
 * that holds the connection open, no usage, a whole answer to a stream request).
 *
 * Token counts are deterministic so tests can compute exact charges: input tokens = the number of whitespace-separated
 * words of all message contents (string contents only); output tokens = the number of text deltas sent (one word each:
 * `w1 `, `w2 `...), or 2 for a tool call.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Behaviour {
  /** Words of the answer (default 5). */
  words?: number;
  /** Send no usage at all (default false). */
  noUsage?: boolean;
  /** Answer this HTTP status with an error body, before any output. */
  failStatus?: number;
  /** Send an error event after this many deltas (then end the stream). */
  failAfter?: number;
  /** Send this many deltas, then hold the connection open without writing until the client goes away. */
  stallAfter?: number;
  /** Answer a stream request with one whole JSON answer. */
  ignoreStream?: boolean;
  /** Answer only once this settles (the test holds a call open, then lets it finish). */
  holdUntil?: Promise<void>;
  /** Streamed: send this many deltas, then wait until `until` settles, then the rest (a pause mid-answer). */
  pauseAfter?: { deltas: number; until: Promise<void> };
  /**
   * When the request defines tools: call this one instead of answering text. Its arguments are sent in two pieces
   * when streamed, and the output tokens reported are 2 (one a piece) either way.
   */
  toolCall?: { name: string; arguments: string };
}

export interface SeenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeUpstream {
  /** Base URL for the OpenAI-compatible preset (`.../v1`). */
  readonly openaiUrl: string;
  /** Base URL for the Anthropic preset (the server root). */
  readonly anthropicUrl: string;
  readonly requests: SeenRequest[];
  /** Streams whose client went away before the fake ended them (cancellations that reached the upstream). */
  readonly abandoned: { count: number };
  /** Calls held open by a stall right now. */
  stalled(): number;
  behave(model: string, behaviour: Behaviour): void;
  /** When set, calls must carry this token (Bearer for OpenAI, x-api-key for Anthropic). */
  requireToken: string | null;
  close(): Promise<void>;
}

type Message = { role?: string; content?: unknown };

export function countWords(messages: readonly Message[]): number {
  return messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.split(/\s+/).filter(Boolean).length : 0), 0);
}

export function answerWords(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `w${i + 1} `);
}

/** A tool call as the answer, whole or streamed, in either API's form. */
function callTool(res: http.ServerResponse, anthropic: boolean, body: Record<string, unknown>, input: number, tool: { name: string; arguments: string }): void {
  const half = Math.ceil(tool.arguments.length / 2);
  const pieces = [tool.arguments.slice(0, half), tool.arguments.slice(half)];
  if (body.stream !== true) {
    const answer = anthropic
      ? { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'tool_use', id: 'toolu_fake', name: tool.name, input: JSON.parse(tool.arguments) }], stop_reason: 'tool_use', usage: { input_tokens: input, output_tokens: 2 } }
      : {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_fake', type: 'function', function: tool }] }, finish_reason: 'tool_calls' }],
          usage: { prompt_tokens: input, completion_tokens: 2, total_tokens: input + 2 },
        };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: Record<string, unknown>): void => void res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): void =>
    void res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  if (anthropic) {
    event('message_start', { message: { id: 'msg_fake', type: 'message', role: 'assistant', content: [], model: body.model, usage: { input_tokens: input, output_tokens: 1 } } });
    event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_fake', name: tool.name, input: {} } });
    for (const p of pieces) event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: p } });
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 2 } });
    event('message_stop', {});
  } else {
    chunk({ role: 'assistant', content: null });
    chunk({ tool_calls: [{ index: 0, id: 'call_fake', type: 'function', function: { name: tool.name, arguments: '' } }] });
    for (const p of pieces) chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] });
    chunk({}, 'tool_calls');
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: input, completion_tokens: 2, total_tokens: input + 2 } })}\n\n`);
    res.write('data: [DONE]\n\n');
  }
  res.end();
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const behaviours = new Map<string, Behaviour>();
  const requests: SeenRequest[] = [];
  const abandoned = { count: 0 };
  const held = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
        return;
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const anthropic = req.url === '/v1/messages';
      if (!anthropic && req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      if (fake.requireToken) {
        const got = anthropic ? req.headers['x-api-key'] : req.headers.authorization?.replace(/^Bearer /, '');
        if (got !== fake.requireToken) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'authentication_error', message: 'bad token' } }));
          return;
        }
      }
      const b = behaviours.get(String(body.model)) ?? {};
      if (b.holdUntil) await b.holdUntil;
      if (b.failStatus) {
        res.writeHead(b.failStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'overloaded_error', message: `fake failure ${b.failStatus}` } }));
        return;
      }
      const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
      const system = typeof body.system === 'string' ? [{ content: body.system }] : [];
      const input = countWords([...system, ...messages]);
      if (b.toolCall && Array.isArray(body.tools)) {
        callTool(res, anthropic, body, input, b.toolCall);
        return;
      }
      const words = answerWords(b.words ?? 5);
      const stream = body.stream === true && !b.ignoreStream;
      if (!stream) {
        const text = words.join('');
        const answer = anthropic
          ? {
              id: 'msg_fake',
              type: 'message',
              role: 'assistant',
              model: body.model,
              content: [{ type: 'text', text }],
              stop_reason: 'end_turn',
              ...(b.noUsage ? {} : { usage: { input_tokens: input, output_tokens: words.length } }),
            }
          : {
              id: 'chatcmpl-fake',
              object: 'chat.completion',
              model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
              ...(b.noUsage ? {} : { usage: { prompt_tokens: input, completion_tokens: words.length, total_tokens: input + words.length } }),
            };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let ended = false;
      res.on('close', () => {
        held.delete(res);
        if (!ended) abandoned.count++;
      });
      const end = (): void => {
        ended = true;
        res.end();
      };
      const send = anthropic
        ? (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
        : (_type: string, data: Record<string, unknown>) => res.write(`data: ${JSON.stringify(data)}\n\n`);
      const chunk = (delta: Record<string, unknown>, finish: string | null, usage: unknown = null) => ({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        usage,
      });
      if (anthropic) {
        send('message_start', {
          message: { id: 'msg_fake', type: 'message', role: 'assistant', content: [], model: body.model, usage: b.noUsage ? undefined : { input_tokens: input, output_tokens: 1 } },
        });
        send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        send('ping', {});
      } else {
        send('', chunk({ role: 'assistant', content: '' }, null));
      }
      for (const [i, w] of words.entries()) {
        if (b.pauseAfter && i === b.pauseAfter.deltas) await b.pauseAfter.until;
        if (b.stallAfter !== undefined && i === b.stallAfter) {
          held.add(res);
          return;
        }
        if (b.failAfter !== undefined && i === b.failAfter) {
          if (anthropic) send('error', { error: { type: 'overloaded_error', message: 'fake mid-stream failure' } });
          else send('', { error: { message: 'fake mid-stream failure', type: 'server_error' } });
          end();
          return;
        }
        if (anthropic) send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } });
        else send('', chunk({ content: w }, null));
      }
      if (b.stallAfter !== undefined && b.stallAfter >= words.length) {
        held.add(res);
        return;
      }
      if (anthropic) {
        send('content_block_stop', { index: 0 });
        send('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: b.noUsage ? undefined : { output_tokens: words.length } });
        send('message_stop', {});
      } else {
        send('', chunk({}, 'stop'));
        const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
        if (wantsUsage && !b.noUsage) {
          res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: input, completion_tokens: words.length, total_tokens: input + words.length } })}\n\n`);
        }
        res.write('data: [DONE]\n\n');
      }
      end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const fake: FakeUpstream = {
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    requests,
    abandoned,
    stalled: () => held.size,
    behave: (model, behaviour) => void behaviours.set(model, behaviour),
    requireToken: null,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
