/**
 * Prices and charges, exact to the minor unit (1e-8). docs/mcp-passthrough.md ("Billing") states the rules; this
 * file is their one implementation.
 *
 * A model row's customer rates are decimal amounts of the settlement currency per million input tokens, per
 * million output tokens and per gigabyte (10^9 bytes) moved. In `manual` mode they are the `manual_*` fields; in
 * `markup` mode each is the matching `cost_*` rate times (100 + markup_pct) / 100, cut to 8 decimals. The rates a
 * customer sees are exactly the rates a charge uses, so anyone can recompute a charge from a usage record:
 *
 *   charge = floor( input × in_rate / 10^6  +  output × out_rate / 10^6  +  bytes × xfer_rate / 10^9 )
 *
 * summed exactly, cut once per call (never rounded up, as fees are).
 */
import { formatMinor, parseDecimal, type Minor } from '../../sdk/index.js';
import type { ModelRow } from './store.js';
import type { ChatMessage, Generation } from './upstream/protocol.js';

export interface Rates {
  inPer1m: Minor;
  outPer1m: Minor;
  xferPerGb: Minor;
}

export interface Metered {
  inputTokens: number;
  outputTokens: number;
  transferBytes: number;
}

const HUNDRED_PERCENT = 100n * 100_000_000n;

/** A stored rate (canonical decimal text, validated on the way in) as minor units. */
export function rate(text: string): Minor {
  const r = parseDecimal(text);
  if (!r.ok) throw new Error(`stored rate "${text}" is not a decimal amount`);
  return r.value;
}

/** A rate with a markup in percent, cut to 8 decimals (markup rows, and offers this node resells). */
export function marked(cost: Minor, markupPct: Minor): Minor {
  return (cost * (HUNDRED_PERCENT + markupPct)) / HUNDRED_PERCENT;
}

/**
 * The rates of a model row, parsed once per row: rows are read-only and replaced whole when the operator changes
 * them (config.ts drops its copy), so a row object always has the same rates, and a call no longer parses six decimals.
 */
const customerMemo = new WeakMap<ModelRow, Rates>();
const costMemo = new WeakMap<ModelRow, Rates>();

function memo(cache: WeakMap<ModelRow, Rates>, m: ModelRow, make: (m: ModelRow) => Rates): Rates {
  let r = cache.get(m);
  if (!r) cache.set(m, (r = Object.freeze(make(m))));
  return r;
}

/** What the customer pays per unit for a model row, in the settlement currency. */
export const customerRates = (m: ModelRow): Rates => memo(customerMemo, m, parseCustomerRates);

function parseCustomerRates(m: ModelRow): Rates {
  if (m.pricingMode === 'manual') {
    return { inPer1m: rate(m.manualInPer1m), outPer1m: rate(m.manualOutPer1m), xferPerGb: rate(m.manualXferPerGb) };
  }
  const markup = rate(m.markupPct);
  return {
    inPer1m: marked(rate(m.costInPer1m), markup),
    outPer1m: marked(rate(m.costOutPer1m), markup),
    xferPerGb: marked(rate(m.costXferPerGb), markup),
  };
}

/** What the call costs the operator at the provider, in the row's cost currency. */
export const costRates = (m: ModelRow): Rates =>
  memo(costMemo, m, (r) => ({ inPer1m: rate(r.costInPer1m), outPer1m: rate(r.costOutPer1m), xferPerGb: rate(r.costXferPerGb) }));

export function charge(rates: Rates, metered: Metered): Minor {
  const tokens = BigInt(metered.inputTokens) * rates.inPer1m + BigInt(metered.outputTokens) * rates.outPer1m;
  // Over a common denominator of 10^9 (tokens per million × 1000, bytes per gigabyte), then one cut.
  return (tokens * 1000n + BigInt(metered.transferBytes) * rates.xferPerGb) / 1_000_000_000n;
}

export function ratesView(r: Rates): { in_price_per_1m: string; out_price_per_1m: string; xfer_price_per_gb: string } {
  return { in_price_per_1m: formatMinor(r.inPer1m), out_price_per_1m: formatMinor(r.outPer1m), xfer_price_per_gb: formatMinor(r.xferPerGb) };
}

// ---------------------------------------------------------------------------------------------------------
// Bounds for the preflight reservation

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Tokens an upstream adds to the input when the call defines tools (Anthropic's tool-use system prompt is ~350). */
export const TOOL_PROMPT_TOKENS = 1024;

type Counted = Pick<ChatMessage, 'content' | 'tool_calls' | 'tool_call_id'>;

/** Text of a message the upstream reads as input: its content, and the calls it made or answers. */
function messageBytes(m: Counted): number {
  return utf8(m.content) + (m.tool_calls ? utf8(JSON.stringify(m.tool_calls)) : 0) + (m.tool_call_id ? utf8(m.tool_call_id) : 0);
}

/** Input the generation options add: tool definitions (and the prompt that presents them), a JSON schema. */
function generationBytes(g: Generation): number {
  return (g.tools ? utf8(JSON.stringify(g.tools)) : 0) + (g.response_format ? utf8(JSON.stringify(g.response_format)) : 0);
}

/**
 * More input tokens than any tokenizer reports for these messages: byte-level BPE tokenizers emit at most one token
 * per byte, and chat templates add a handful per message; 16 per message and 16 more cover every template we know.
 */
export function inputTokenBound(messages: readonly Counted[], generation: Generation = {}): number {
  const tools = generation.tools?.length ? TOOL_PROMPT_TOKENS : 0;
  return messages.reduce((n, m) => n + messageBytes(m) + 16, 16 + generationBytes(generation) + tools);
}

/** Typical tokenizers average about four bytes of text per token: the estimate when an upstream reports nothing. */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8(text) / 4);
}

export function estimateInputTokens(messages: readonly Counted[], generation: Generation = {}): number {
  return messages.reduce((n, m) => n + Math.ceil(messageBytes(m) / 4) + 4, Math.ceil(generationBytes(generation) / 4));
}

/**
 * Bytes an upstream answer may take for this many output tokens: a streamed answer is one JSON event of about two
 * hundred bytes per token at most, plus headers and the closing events.
 */
export function responseBytesBound(maxOutputTokens: number): number {
  return 8192 + maxOutputTokens * 512;
}
