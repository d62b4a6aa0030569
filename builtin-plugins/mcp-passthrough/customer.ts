/**
 * What a customer key can do, independent of the surface: the MCP tools, resources and prompts (mcp/server.ts) and
 * the customer HTTP routes (public-routes.ts) both call these. Arguments are checked here, by the rules of
 * Document 2 ("Tool | Arguments"); a bad argument is a ToolFailure `invalid_arguments`.
 */
import { formatMinor, parseDecimal, type IdentityApi, type NodeInfo } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import { ToolFailure, topupMemo } from './billing.js';
import type { OperatorConfig } from './config.js';
import { effectiveLimits, type CallGate } from './limits.js';
import { candidateName, modelAllowed, type CompletionIo, type CompletionResult, type Inference, type Routing } from './inference.js';
import { iso } from './keys.js';
import { customerRates, ratesView } from './pricing.js';
import { customerUsageView } from './present.js';
import type { KeyRow, McpStore } from './store.js';
import { GENERATION_FIELDS, parseGeneration, parseToolCalls } from './generation.js';
import type { ChatMessage, ChatRole, Generation } from './upstream/protocol.js';

export const USAGE_RECENT_DEFAULT = 25;
export const USAGE_RECENT_MAX = 200;
export const USAGE_RESOURCE_ROWS = 50;
export const KEYINFO_USAGE_ROWS = 25;
const MAX_MESSAGES = 1000;
const ROLES: readonly ChatRole[] = ['system', 'user', 'assistant', 'tool'];

type Args = Record<string, unknown>;

export function bad(message: string, field: string): ToolFailure {
  return new ToolFailure('invalid_arguments', message, { field });
}

export function positiveInt(args: Args, field: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = args[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw bad(`${field} must be a positive integer`, field);
  return v;
}

export function optionalText(args: Args, field: string): string | undefined {
  const v = args[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !v.trim() || v.length > 200) throw bad(`${field} must be a non-empty text`, field);
  return v.trim();
}

/**
 * Messages in OpenAI's form: system and user turns of text; assistant turns of text, or of tool calls (content then
 * empty or null); tool turns answering a call by its id. No images, no other fields.
 */
export function parseMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw bad('messages must be a non-empty array of {role, content}', 'messages');
  if (value.length > MAX_MESSAGES) throw bad(`messages holds at most ${MAX_MESSAGES} entries`, 'messages');
  return value.map((m, i) => {
    const at = `messages[${i}]`;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw bad(`${at} must be an object {role, content}`, at);
    const { role, content, tool_calls, tool_call_id, ...rest } = m as Record<string, unknown>;
    if (Object.keys(rest).length) throw bad(`${at} may only have role, content, tool_calls (assistant) and tool_call_id (tool)`, at);
    if (typeof role !== 'string' || !ROLES.includes(role as ChatRole)) throw bad(`${at}.role must be system, user, assistant or tool`, `${at}.role`);
    if (tool_calls !== undefined && tool_calls !== null && role !== 'assistant') throw bad(`${at}.tool_calls belongs to assistant messages`, `${at}.tool_calls`);
    if (tool_call_id !== undefined && role !== 'tool') throw bad(`${at}.tool_call_id belongs to tool messages`, `${at}.tool_call_id`);
    const calls = tool_calls === undefined || tool_calls === null ? undefined : parseToolCalls(tool_calls, `${at}.tool_calls`);
    if (typeof content !== 'string' && !(calls && (content === null || content === undefined))) throw bad(`${at}.content must be a string (text only)`, `${at}.content`);
    const text = typeof content === 'string' ? content : '';
    if (role === 'tool') {
      if (typeof tool_call_id !== 'string' || !tool_call_id) throw bad(`${at}.tool_call_id must name the call it answers`, `${at}.tool_call_id`);
      return { role, content: text, tool_call_id };
    }
    return { role: role as ChatRole, content: text, ...(calls ? { tool_calls: calls } : {}) };
  });
}

export interface RouteArgs {
  model?: string | undefined;
  estimatedInputTokens?: number | undefined;
  maxOutputTokens?: number | undefined;
}

export function parseRouteArgs(args: Args): RouteArgs {
  return {
    model: optionalText(args, 'model'),
    estimatedInputTokens: positiveInt(args, 'estimated_input_tokens'),
    maxOutputTokens: positiveInt(args, 'max_output_tokens'),
  };
}

export interface ChatArgs {
  messages: ChatMessage[];
  model?: string | undefined;
  maxOutputTokens?: number | undefined;
  routing?: Routing | undefined;
  generation?: Generation | undefined;
}

const ROUTING_FIELDS = new Set(['policy', 'remote_allowed', 'max_hops', 'max_price']);

/** A call's `routing`: it ranks candidates and lowers limits, never raises an operator's (inference.ts). */
export function parseRouting(value: unknown): Routing | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw bad('routing must be an object', 'routing');
  const r = value as Args;
  for (const k of Object.keys(r)) if (!ROUTING_FIELDS.has(k)) throw bad(`routing.${k} is not a routing field`, `routing.${k}`);
  if (r.policy !== undefined && !['local_first', 'cheapest_advertised', 'manual'].includes(r.policy as string)) {
    throw bad('routing.policy must be local_first, cheapest_advertised or manual', 'routing.policy');
  }
  if (r.remote_allowed !== undefined && typeof r.remote_allowed !== 'boolean') throw bad('routing.remote_allowed must be a boolean', 'routing.remote_allowed');
  const price = r.max_price === undefined ? undefined : typeof r.max_price === 'string' ? parseDecimal(r.max_price) : { ok: false as const };
  if (price && !price.ok) throw bad('routing.max_price must be a decimal string', 'routing.max_price');
  return {
    policy: r.policy as Routing['policy'],
    remoteAllowed: r.remote_allowed as boolean | undefined,
    maxHops: positiveInt(r, 'max_hops'),
    maxPrice: price?.ok ? price.value : undefined,
  };
}

export function parseChatArgs(args: Args, legacy = false): ChatArgs {
  const known: readonly string[] = legacy ? ['messages', 'model'] : ['messages', 'model', 'max_output_tokens', 'routing', ...GENERATION_FIELDS];
  for (const k of Object.keys(args)) if (!known.includes(k)) throw bad(`unknown argument ${k}`, k);
  return {
    messages: parseMessages(args.messages),
    model: optionalText(args, 'model'),
    maxOutputTokens: legacy ? undefined : positiveInt(args, 'max_output_tokens'),
    routing: legacy ? undefined : parseRouting(args.routing),
    generation: legacy ? undefined : parseGeneration(args),
  };
}

export class CustomerApi {
  constructor(
    private readonly store: McpStore,
    private readonly config: OperatorConfig,
    private readonly inference: Inference,
    private readonly contacts: ContactsService,
    private readonly identity: Pick<IdentityApi, 'pubkeyHash' | 'publicKey'>,
    private readonly node: () => NodeInfo,
    private readonly gate: CallGate,
    private readonly refused: (limit: string) => void,
  ) {}

  /** The key as stored now (balances move between the calls of a session). */
  fresh(keyId: number): KeyRow {
    const key = this.store.key(keyId);
    if (!key || key.revokedAt !== null) throw new ToolFailure('key_revoked', 'this key was revoked');
    return key;
  }

  /** The models a call may name (of a key: those its allow-list lets it call). */
  listModels(key?: KeyRow): Record<string, unknown> {
    const settings = this.config.settings();
    const active = this.config.active();
    const models = this.config
      .models()
      .filter((m) => m.enabled)
      .map((m) => ({
        model: m.id,
        label: m.label,
        provider: m.providerId,
        ...ratesView(customerRates(m)),
        max_output_tokens: Math.min(m.maxOutputTokens ?? settings.maxOutputTokens, 32768),
        hops: 0,
        active: m.providerId === active.provider && m.id === active.model,
      }));
    const network = this.inference.networkOffers().map((c) => ({
      model: c.offer.model,
      label: c.offer.model,
      provider: candidateName(c),
      ...ratesView(c.rates),
      max_output_tokens: c.allowance,
      hops: c.hops,
      active: false,
    }));
    return {
      models: [...models, ...network].filter((m) => !key || modelAllowed(key, m.model)),
      currency: settings.currency,
      active_model: active.model,
      active_provider: active.provider,
      routing_mode: settings.remoteRouting ? 'local_and_network' : 'local',
    };
  }

  balance(key: KeyRow): Record<string, unknown> {
    const funds = this.inference.funds(key);
    return {
      key_id: key.id,
      balance: formatMinor(key.balance),
      currency: key.currency,
      last_used_at: iso(key.lastUsedAt),
      reserved: formatMinor(funds.reserved),
      debt: formatMinor(key.debt),
      funding: key.funding,
      credit_available: funds.credit ? formatMinor(funds.credit.available) : null,
      available: formatMinor(funds.available),
    };
  }

  topupInstructions(key: KeyRow): Record<string, unknown> {
    const node = this.node();
    const contact = key.contactHash ? this.contacts.get(key.contactHash) : null;
    const memo = topupMemo(key.id);
    return {
      key_id: key.id,
      memo,
      currency: key.currency,
      settlement_currency: this.config.settings().currency,
      node: {
        pubkey_hash: this.identity.pubkeyHash,
        verification_public_key: this.identity.publicKey.toString('base64url'),
        tor: node.addresses.tor,
        https: node.addresses.https,
        http: node.addresses.http,
      },
      bound_contact: key.contactHash ? { pubkey_hash: key.contactHash, name: contact?.name ?? null } : null,
      instructions: key.contactHash
        ? `From the node of the bound contact, send a payment in ${key.currency} to this node with the description "${memo}". It is credited once it completes.`
        : `Send a payment in ${key.currency} to this node with the description "${memo}". It is credited once it completes.`,
      sends_payment: false,
    };
  }

  usageRecent(key: KeyRow, limit: number): Record<string, unknown> {
    return { key_id: key.id, usage: this.store.usage(limit, key.id).map(customerUsageView) };
  }

  routeExplain(key: KeyRow, args: RouteArgs): Record<string, unknown> {
    return { ...this.inference.explain(key, args), execution_mode: 'synchronous' };
  }

  routeStatus(key: KeyRow, args: RouteArgs): Record<string, unknown> {
    const e = this.inference.explain(key, args);
    const rejections = e.candidates.filter((c) => !c.ready).map((c) => ({ provider: c.provider, model: c.model, reasons: c.rejections }));
    return {
      model: e.model,
      ready: e.candidates.filter((c) => c.ready).length,
      rejected: rejections.length,
      best: e.best,
      rejections,
      admission: e.admission,
      problem: e.problem,
      execution_mode: 'synchronous',
      pending_requests_supported: false,
    };
  }

  /** The limit a billed call of the key would meet now (counted as a refusal), or null: for a door that answers first. */
  limitRefusal(key: KeyRow): ToolFailure | null {
    const refusal = this.gate.check(key.id, effectiveLimits(key, this.config.settings()));
    if (refusal) this.refused(String(refusal.data.limit));
    return refusal;
  }

  /**
   * A billed call, whichever door it came through (the MCP tool, legacy chat, the OpenAI-compatible routes), within
   * the key's limits (limits.ts).
   */
  async complete(key: KeyRow, args: ChatArgs, io: CompletionIo): Promise<CompletionResult> {
    let pass;
    try {
      pass = this.gate.admit(key.id, effectiveLimits(key, this.config.settings()));
    } catch (err) {
      if (err instanceof ToolFailure) this.refused(String(err.data.limit));
      throw err;
    }
    let tokens = 0;
    try {
      const r = await this.inference.complete(key, args, io);
      tokens = r.usage.inputTokens + r.usage.outputTokens;
      return r;
    } catch (err) {
      if (err instanceof ToolFailure && err.code === 'budget_exceeded') this.refused('budget');
      throw err;
    } finally {
      pass.done(tokens);
    }
  }

  async chat(key: KeyRow, args: ChatArgs, io: CompletionIo): Promise<Record<string, unknown>> {
    return completionView(await this.complete(key, args, io));
  }

  activeProvider(): Record<string, unknown> {
    const active = this.config.active();
    const provider = active.provider ? this.config.providers().find((p) => p.id === active.provider) : undefined;
    const models = provider ? this.config.models().filter((m) => m.providerId === provider.id) : [];
    return {
      provider: provider?.id ?? null,
      preset: provider?.preset ?? null,
      has_token: !!provider?.tokenEnc,
      model_count: models.length,
      enabled_model_count: models.filter((m) => m.enabled).length,
      active_model: active.model,
    };
  }
}

export function completionView(r: CompletionResult): Record<string, unknown> {
  return {
    output: r.output,
    ...(r.toolCalls.length ? { tool_calls: r.toolCalls } : {}),
    model: r.model,
    provider: r.provider,
    finish_reason: r.finishReason,
    input_tokens: r.usage.inputTokens,
    output_tokens: r.usage.outputTokens,
    transfer_bytes: r.usage.transferBytes,
    estimated: r.usage.estimated,
    max_output_tokens: r.maxOutputTokens,
    charge: formatMinor(r.usage.charge),
    currency: r.usage.currency,
    balance: formatMinor(r.key.balance),
    debt: formatMinor(r.key.debt),
    usage_id: r.usage.id,
    route: { kind: r.route.kind, provider: r.provider, hops: r.route.hops, ...(r.route.seller ? { seller: r.route.seller } : {}), failovers: r.failovers },
    ...(r.failure ? { error: r.failure } : {}),
  };
}
