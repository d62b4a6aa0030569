/**
 * The `mcp-passthrough` service: what other plugins may use. A plugin lists `"requires": ["mcp-passthrough"]` and,
 * in setup:
 *
 *   const mcp = ctx.services.use<McpPassthroughService>('mcp-passthrough');
 *   mcp.registerPreset({ id: 'my-llm', label: 'My LLM', protocol: myProtocol, defaultEndpoint: null, requiresToken: true });
 *
 * Presets are the extension point of upstream formats (upstream/protocol.ts has the contract). The federation adds
 * request-key on top of `mintBootstrapKey`: a key minted without an operator, reaped after 24 hours when it was never
 * used, bound or funded.
 */
import type { Minor } from '../../sdk/index.js';
import type { ProviderPreset } from './upstream/protocol.js';

export type { ChatMessage, Generation, ProviderPreset, StreamDecoder, StreamItem, UpstreamCall, ToolCall, ToolCallDelta, UpstreamProtocol, WholeAnswer } from './upstream/protocol.js';

export const MCP_SERVICE = 'mcp-passthrough';

/**
 * Bus events this plugin publishes. `budgetSoftLimit`: a key's spending in its budget period crossed the operator's
 * soft limit, payload `{key_id, label, spent, budget, currency, period, soft_limit_pct, resets_at}` (once per period).
 */
export const MCP_EVENTS = { budgetSoftLimit: 'mcp-passthrough.budget.soft_limit' } as const;

export interface BootstrapKeyInput {
  label: string;
  /** The proved contact (key hash) whose payments fund the key; null for an unbound key of open mode. */
  contactHash: string | null;
  /** The caller's public key, recorded as given (not trusted without a proof). */
  registeredPubkey?: string | null;
}

export interface MintedKeyInfo {
  keyId: number;
  /** Shown once: only its hash is stored. */
  token: string;
  currency: string;
  depositMemo: string;
}

export interface KeyFunds {
  keyId: number;
  currency: string;
  balance: Minor;
  debt: Minor;
  /** Every top-up credited to the key (to its debt and to its balance). */
  toppedUp: Minor;
  /** Every charge of the key's calls. */
  charged: Minor;
}

export interface McpPassthroughService {
  registerPreset(preset: ProviderPreset): void;
  presets(): { id: string; label: string }[];
  mintBootstrapKey(input: BootstrapKeyInput): MintedKeyInfo;
  /** A key's money as its records add up (for reconciliation across nodes); null for an unknown key. */
  keyFunds(keyId: number): KeyFunds | null;
}
