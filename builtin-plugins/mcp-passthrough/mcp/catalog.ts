/**
 * What the MCP server offers: the seven tools with their input schemas, the three resources and the three prompts
 * of Document 2 ("Customer MCP endpoint").
 */
import { MAX_OUTPUT_CAP } from '../config.js';
import { USAGE_RECENT_DEFAULT, USAGE_RECENT_MAX } from '../customer.js';

const none = { type: 'object', properties: {}, additionalProperties: false } as const;

const routeArgs = {
  type: 'object',
  properties: {
    model: { type: 'string', description: 'Model to route; default: the active model' },
    estimated_input_tokens: { type: 'integer', minimum: 1, description: 'Input tokens to price the estimate with (default 500)' },
    max_output_tokens: { type: 'integer', minimum: 1, description: `Output tokens to price the estimate with (clamped to the allowance, at most ${MAX_OUTPUT_CAP})` },
  },
  additionalProperties: false,
} as const;

/** The one tool that runs and bills a call (the others read the key's state). */
export const BILLED_TOOL = 'chat.completion';

export const TOOLS = [
  {
    name: 'chat.list_models',
    title: 'List models',
    description: 'Enabled models with their customer rates per million tokens, the settlement currency, the active model and the routing mode.',
    inputSchema: none,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'balance.check',
    title: 'Check balance',
    description: "This key's prepaid balance, currency and last use.",
    inputSchema: none,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'topup.instructions',
    title: 'Top-up instructions',
    description: "How to fund this key: the node's locators and verification key, the settlement currency and the memo mcp-topup:<key_id>. Sends no payment.",
    inputSchema: none,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'usage.recent',
    title: 'Recent usage',
    description: 'Recent billed calls of this key, newest first.',
    inputSchema: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, maximum: USAGE_RECENT_MAX, default: USAGE_RECENT_DEFAULT } },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'route.explain',
    title: 'Explain routing',
    description: 'Dry run: the candidate routes for a call, their estimated charges, readiness and rejection reasons. No prompt is sent, nothing is paid.',
    inputSchema: routeArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'route.status',
    title: 'Routing status',
    description: 'Dry run summary: how many routes are ready, the best one, the rejections. Calls are synchronous.',
    inputSchema: routeArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: BILLED_TOOL,
    title: 'Chat completion (billed)',
    description:
      'Runs a chat completion and bills this key for the tokens used. Messages, tools and options take OpenAI\'s chat completions form. With a progress token the text arrives as notifications/progress while it is produced. Returns the output, tool_calls (when the model called tools), model, provider, tokens, charge, currency and balance.',
    inputSchema: {
      type: 'object',
      properties: {
        messages: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool'] },
              content: { type: ['string', 'null'], description: 'Text; null for an assistant turn that only called tools' },
              tool_calls: { type: 'array', description: "An assistant turn's calls: [{id, type: 'function', function: {name, arguments}}]", items: { type: 'object' } },
              tool_call_id: { type: 'string', description: 'A tool turn: the id of the call it answers' },
            },
            required: ['role'],
            additionalProperties: false,
          },
        },
        tools: { type: 'array', maxItems: 128, description: "[{type: 'function', function: {name, description?, parameters?}}]", items: { type: 'object' } },
        tool_choice: { description: "auto, none, required, or {type: 'function', function: {name}}" },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        top_p: { type: 'number', minimum: 0, maximum: 1 },
        stop: { type: ['string', 'array'], items: { type: 'string' }, maxItems: 4 },
        seed: { type: 'integer', description: 'Not every provider takes it (Anthropic does not)' },
        response_format: { type: 'object', description: "{type: 'text' | 'json_object'} or {type: 'json_schema', json_schema: {name, schema}}; not every provider takes it" },
        model: { type: 'string', description: 'Default: the active model' },
        max_output_tokens: { type: 'integer', minimum: 1, description: `Clamped to the allowance (default 1024, at most ${MAX_OUTPUT_CAP})` },
        routing: {
          type: 'object',
          properties: {
            policy: { type: 'string', enum: ['local_first', 'cheapest_advertised', 'manual'] },
            remote_allowed: { type: 'boolean' },
            max_hops: { type: 'integer', minimum: 1 },
            max_price: { type: 'string', description: 'Decimal ceiling of the estimated charge' },
          },
          additionalProperties: false,
        },
      },
      required: ['messages'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
];

export const RESOURCES = [
  {
    uri: 'mcp-passthrough://provider/active',
    name: 'provider-active',
    title: 'Active provider',
    description: 'The active provider id and preset, whether it has a token, its model count and the active model.',
    mimeType: 'application/json',
  },
  {
    uri: 'mcp-passthrough://provider/models',
    name: 'provider-models',
    title: 'Models and rates',
    description: 'Enabled models with their customer rates.',
    mimeType: 'application/json',
  },
  {
    uri: 'mcp-passthrough://usage/recent',
    name: 'usage-recent',
    title: 'Recent usage',
    description: 'The last 50 usage records of this key.',
    mimeType: 'application/json',
  },
];

export const PROMPTS = [
  {
    name: 'concise_summary',
    title: 'Concise summary',
    description: 'Asks chat.completion for a short summary of a text.',
    arguments: [
      { name: 'content', description: 'The text to summarize', required: true },
      { name: 'max_output_tokens', description: 'Output cap for the summary call', required: false },
    ],
  },
  {
    name: 'model_picker',
    title: 'Pick a model',
    description: "Helps choose one of this node's models for a task, within a budget.",
    arguments: [
      { name: 'task_description', description: 'What the model should do', required: true },
      { name: 'budget', description: 'Most to spend per call, in the settlement currency', required: false },
      { name: 'quality', description: 'low, balanced or high', required: false },
    ],
  },
  {
    name: 'balance_check_workflow',
    title: 'Balance check workflow',
    description: 'Checks the balance and, below a threshold, shows how to top up.',
    arguments: [{ name: 'low_threshold', description: 'Balance below which to top up', required: false }],
  },
];

export const QUALITY_VALUES = ['low', 'balanced', 'high'];
