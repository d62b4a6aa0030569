/**
 * The arguments of a call beyond text, in OpenAI's form and names, the same on both doors (the MCP tool's arguments
 * and the OpenAI-compatible body): tool definitions and the choice among them, sampling (`temperature`, `top_p`,
 * `seed`), `stop` sequences and `response_format`; and the tool turns of a conversation (an assistant's
 * `tool_calls`, the `tool` messages answering them). Bad values are `invalid_arguments` naming the field; the
 * limits are OpenAI's own, so a client that OpenAI accepts is accepted here.
 */
import { ToolFailure } from './billing.js';
import { isObject, type Generation, type ResponseFormat, type ToolCall, type ToolChoice, type ToolDefinition } from './upstream/protocol.js';

export const GENERATION_FIELDS = ['tools', 'tool_choice', 'temperature', 'top_p', 'stop', 'seed', 'response_format'] as const;
const MAX_TOOLS = 128;
const MAX_STOP = 4;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const bad = (message: string, field: string): ToolFailure => new ToolFailure('invalid_arguments', message, { field });

function only(value: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const k of Object.keys(value)) if (!allowed.includes(k)) throw bad(`${at}.${k} is not allowed here`, `${at}.${k}`);
}

function tool(value: unknown, at: string): ToolDefinition {
  if (!isObject(value) || value.type !== 'function' || !isObject(value.function)) throw bad(`${at} must be {type: "function", function: {name, description?, parameters?}}`, at);
  only(value, ['type', 'function'], at);
  const fn = value.function;
  only(fn, ['name', 'description', 'parameters', 'strict'], `${at}.function`);
  if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) throw bad(`${at}.function.name must be 1-64 letters, digits, _ or -`, `${at}.function.name`);
  if (fn.description !== undefined && typeof fn.description !== 'string') throw bad(`${at}.function.description must be a string`, `${at}.function.description`);
  if (fn.parameters !== undefined && !isObject(fn.parameters)) throw bad(`${at}.function.parameters must be a JSON schema object`, `${at}.function.parameters`);
  if (fn.strict !== undefined && typeof fn.strict !== 'boolean') throw bad(`${at}.function.strict must be a boolean`, `${at}.function.strict`);
  return { type: 'function', function: fn as ToolDefinition['function'] };
}

function toolChoice(value: unknown, tools: ToolDefinition[] | undefined): ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') {
    if (value === 'required' && !tools) throw bad('tool_choice required needs tools', 'tool_choice');
    return value;
  }
  const name = isObject(value) && value.type === 'function' && isObject(value.function) ? value.function.name : undefined;
  if (typeof name !== 'string') throw bad('tool_choice must be auto, none, required or {type: "function", function: {name}}', 'tool_choice');
  if (!tools?.some((t) => t.function.name === name)) throw bad(`tool_choice names ${name}, which is not among tools`, 'tool_choice');
  return { type: 'function', function: { name } };
}

function number(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw bad(`${field} must be a number from ${min} to ${max}`, field);
  return value;
}

function responseFormat(value: unknown): ResponseFormat {
  if (!isObject(value)) throw bad('response_format must be {type: text | json_object | json_schema}', 'response_format');
  if (value.type === 'text' || value.type === 'json_object') {
    only(value, ['type'], 'response_format');
    return { type: value.type };
  }
  if (value.type !== 'json_schema' || !isObject(value.json_schema) || typeof value.json_schema.name !== 'string') {
    throw bad('response_format must be {type: text | json_object} or {type: json_schema, json_schema: {name, schema?, strict?}}', 'response_format');
  }
  only(value, ['type', 'json_schema'], 'response_format');
  only(value.json_schema, ['name', 'description', 'schema', 'strict'], 'response_format.json_schema');
  return { type: 'json_schema', json_schema: value.json_schema };
}

/** The generation options among a call's arguments (absent or null ones are left out). */
export function parseGeneration(args: Record<string, unknown>): Generation {
  const g: Generation = {};
  const given = (k: string): boolean => args[k] !== undefined && args[k] !== null;
  if (given('tools')) {
    const tools = args.tools;
    if (!Array.isArray(tools) || tools.length > MAX_TOOLS) throw bad(`tools must be an array of at most ${MAX_TOOLS} tools`, 'tools');
    g.tools = tools.map((t, i) => tool(t, `tools[${i}]`));
    const names = new Set(g.tools.map((t) => t.function.name));
    if (names.size !== g.tools.length) throw bad('tools must have distinct names', 'tools');
    if (!g.tools.length) delete g.tools;
  }
  if (given('tool_choice')) g.tool_choice = toolChoice(args.tool_choice, g.tools);
  if (given('temperature')) g.temperature = number(args.temperature, 'temperature', 0, 2);
  if (given('top_p')) g.top_p = number(args.top_p, 'top_p', 0, 1);
  if (given('seed')) {
    if (!Number.isSafeInteger(args.seed)) throw bad('seed must be an integer', 'seed');
    g.seed = args.seed as number;
  }
  if (given('stop')) {
    const stop = typeof args.stop === 'string' ? [args.stop] : args.stop;
    if (!Array.isArray(stop) || stop.length === 0 || stop.length > MAX_STOP || !stop.every((s) => typeof s === 'string' && s !== '')) {
      throw bad(`stop must be a non-empty string or an array of 1 to ${MAX_STOP} of them`, 'stop');
    }
    g.stop = stop as string[];
  }
  if (given('response_format')) g.response_format = responseFormat(args.response_format);
  return g;
}

/** An assistant turn's `tool_calls`. */
export function parseToolCalls(value: unknown, at: string): ToolCall[] {
  if (!Array.isArray(value) || value.length === 0) throw bad(`${at} must be a non-empty array of tool calls`, at);
  return value.map((c, i) => {
    const fn = isObject(c) && isObject(c.function) ? c.function : null;
    if (!isObject(c) || c.type !== 'function' || typeof c.id !== 'string' || !c.id || !fn || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      throw bad(`${at}[${i}] must be {id, type: "function", function: {name, arguments (a JSON string)}}`, `${at}[${i}]`);
    }
    return { id: c.id, type: 'function', function: { name: fn.name, arguments: fn.arguments } };
  });
}
