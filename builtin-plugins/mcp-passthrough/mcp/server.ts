/**
 * One MCP server per session (the SDK refuses to connect a server twice, and sharing one would mix customers).
 * It answers the JSON-RPC methods of Document 2; tools, resources, prompts and completions need an initialized
 * session (after `notifications/initialized`). Tool failures are results with `isError: true` and
 * `structuredContent.error = {code, message, ...}`; protocol mistakes (an unknown tool, a missing prompt argument)
 * are JSON-RPC errors.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseDecimal, type Logger } from '../../../sdk/index.js';
import { ToolFailure } from '../billing.js';
import { callMarkOf } from '../federation/call-mark.js';
import { CustomerApi, parseChatArgs, parseRouteArgs, USAGE_RECENT_DEFAULT, USAGE_RECENT_MAX, USAGE_RESOURCE_ROWS } from '../customer.js';
import { PROMPTS, QUALITY_VALUES, RESOURCES, TOOLS } from './catalog.js';

/** Our own JSON-RPC codes beside the standard ones (docs/mcp-passthrough.md, "Errors"). */
export const RPC = {
  sessionNotFound: -32001,
  resourceNotFound: -32002,
  unauthorized: -32010,
  originRefused: -32011,
  notInitialized: -32012,
  /** A key's limit refused the call (limits.ts); `data.retry_after` says when it would pass. */
  rateLimited: -32029,
} as const;

const SessionEndRequestSchema = z.object({ method: z.literal('session/end'), params: z.optional(z.object({}).passthrough()) });

export interface SessionHooks {
  readonly keyId: number;
  initialized(): boolean;
  markInitialized(): void;
  /** Ends the session once the current answer is out. */
  endSoon(): void;
  /** An abort controller for a tool call, aborted on cancellation, a closed connection or the session's end. */
  track(requestId: string | number, signal: AbortSignal): AbortController;
  untrack(requestId: string | number): void;
}

function toolResult(data: Record<string, unknown>, summary?: string): CallToolResult {
  return { content: [{ type: 'text', text: summary ?? JSON.stringify(data) }], structuredContent: data };
}

function toolError(f: ToolFailure): CallToolResult {
  const error = { code: f.code, message: f.message, ...f.data };
  return { isError: true, content: [{ type: 'text', text: `${f.code}: ${f.message}` }], structuredContent: { error } };
}

function json(uri: string, data: unknown): { contents: { uri: string; mimeType: string; text: string }[] } {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
}

export function buildServer(session: SessionHooks, api: CustomerApi, version: string, log: Logger): Server {
  const server = new Server(
    { name: 'mcp-passthrough', title: 'Metered inference', version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
      instructions: 'Billed chat completions: chat.completion runs and bills a call; balance.check and topup.instructions tell how to pay for them.',
    },
  );
  server.oninitialized = () => session.markInitialized();
  const ready = (): void => {
    if (!session.initialized()) throw new McpError(RPC.notInitialized, 'Session not initialized: send notifications/initialized first');
  };

  server.setRequestHandler(ListToolsRequestSchema, () => {
    ready();
    return { tools: TOOLS };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    ready();
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (!TOOLS.some((t) => t.name === name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      const key = api.fresh(session.keyId);
      switch (name) {
        case 'chat.list_models':
          return toolResult(api.listModels(key));
        case 'balance.check':
          return toolResult(api.balance(key));
        case 'topup.instructions':
          return toolResult(api.topupInstructions(key));
        case 'usage.recent': {
          const limit = args.limit ?? USAGE_RECENT_DEFAULT;
          if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > USAGE_RECENT_MAX) {
            throw new ToolFailure('invalid_arguments', `limit must be an integer from 1 to ${USAGE_RECENT_MAX}`, { field: 'limit' });
          }
          return toolResult(api.usageRecent(key, limit));
        }
        case 'route.explain':
          return toolResult(api.routeExplain(key, parseRouteArgs(args)));
        case 'route.status':
          return toolResult(api.routeStatus(key, parseRouteArgs(args)));
        default: {
          const chat = parseChatArgs(args);
          const progressToken = request.params._meta?.progressToken;
          const abort = session.track(extra.requestId, extra.signal);
          let progress = 0;
          const onDelta =
            progressToken === undefined
              ? undefined
              : (text: string): void => {
                  progress++;
                  extra
                    .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message: text } })
                    .catch((err: unknown) => log.debug('progress not delivered', { error: String(err) }));
                };
          try {
            // A reselling node's call carries its own mark: the usage row keeps it, so that node can find this call's charge.
            const callId = callMarkOf(request.params._meta) ?? String(extra.requestId);
            const result = await api.chat(key, chat, { tool: name, callId, cancel: abort.signal, ...(onDelta ? { onDelta } : {}) });
            // A failure after output was produced: the output and its charge stand, and the result says why it stopped.
            return { ...toolResult(result, String(result.output)), ...(result.error ? { isError: true } : {}) };
          } finally {
            session.untrack(extra.requestId);
          }
        }
      }
    } catch (err) {
      if (err instanceof ToolFailure && err.code === 'rate_limit_exceeded') throw new McpError(RPC.rateLimited, err.message, { code: err.code, ...err.data });
      if (err instanceof ToolFailure) return toolError(err);
      if (err instanceof McpError) throw err;
      log.error('tool failed', { tool: name, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return toolError(new ToolFailure('internal_error', 'the tool failed on the node'));
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => {
    ready();
    return { resources: RESOURCES };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => {
    ready();
    return { resourceTemplates: [] };
  });

  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    ready();
    const { uri } = request.params;
    switch (uri) {
      case 'mcp-passthrough://provider/active':
        return json(uri, api.activeProvider());
      case 'mcp-passthrough://provider/models':
        return json(uri, api.listModels());
      case 'mcp-passthrough://usage/recent':
        return json(uri, api.usageRecent(api.fresh(session.keyId), USAGE_RESOURCE_ROWS));
      default:
        throw new McpError(RPC.resourceNotFound, `Resource not found: ${uri}`, { uri });
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => {
    ready();
    return { prompts: PROMPTS };
  });

  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    ready();
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const required = (arg: string): string => {
      const v = args[arg];
      if (typeof v !== 'string' || !v.trim()) throw new McpError(ErrorCode.InvalidParams, `prompt ${name} needs the argument ${arg}`);
      return v;
    };
    const user = (text: string) => ({ role: 'user' as const, content: { type: 'text' as const, text } });
    switch (name) {
      case 'concise_summary': {
        const content = required('content');
        const cap = args.max_output_tokens ? ` Call chat.completion with max_output_tokens ${args.max_output_tokens}.` : '';
        return {
          description: 'A short summary of the given text',
          messages: [user(`Summarize the following text concisely, keeping only what matters.${cap}\n\n${content}`)],
        };
      }
      case 'model_picker': {
        const task = required('task_description');
        const quality = args.quality && QUALITY_VALUES.includes(args.quality) ? args.quality : 'balanced';
        if (args.budget !== undefined && !parseDecimal(args.budget).ok) throw new McpError(ErrorCode.InvalidParams, 'budget must be a decimal amount');
        const models = api.listModels();
        return {
          description: 'Choose a model for a task',
          messages: [
            user(
              `Pick the model best suited to this task at ${quality} quality${args.budget ? `, spending at most ${args.budget} ${String(models.currency)} per call` : ''}.\n` +
                `Task: ${task}\n` +
                `Models (rates per million tokens, ${String(models.currency)}): ${JSON.stringify(models.models)}\n` +
                'Use route.explain to check the estimated charge before calling chat.completion.',
            ),
          ],
        };
      }
      case 'balance_check_workflow': {
        const threshold = args.low_threshold;
        if (threshold !== undefined && !parseDecimal(threshold).ok) throw new McpError(ErrorCode.InvalidParams, 'low_threshold must be a decimal amount');
        return {
          description: 'Check the balance and top up when it runs low',
          messages: [
            user(
              `Call balance.check. If the balance is below ${threshold ?? 'what the next calls need'}, call topup.instructions and show the memo and node locators; ` +
                'topping up is a payment the user makes from their own node. Use usage.recent to see what recent calls cost.',
            ),
          ],
        };
      }
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    }
  });

  server.setRequestHandler(CompleteRequestSchema, (request) => {
    ready();
    const { ref, argument } = request.params;
    const prefix = argument.value.toLowerCase();
    let values: string[] = [];
    if (ref.type === 'ref/resource') {
      values = RESOURCES.map((r) => r.uri);
    } else if (argument.name === 'model') {
      values = [...new Set((api.listModels().models as { model: string }[]).map((m) => m.model))];
    } else if (argument.name === 'quality') {
      values = QUALITY_VALUES;
    } else if (argument.name === 'max_output_tokens') {
      values = ['256', '512', '1024', '4096'];
    }
    const matching = values.filter((v) => v.toLowerCase().startsWith(prefix));
    return { completion: { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 } };
  });

  server.setRequestHandler(SessionEndRequestSchema, () => {
    session.endSoon();
    return {};
  });

  return server;
}
