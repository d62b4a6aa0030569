/**
 * The node-cli commands of the builtin plugins. node-cli (kernel/cli) imports this registry and nothing else of
 * the plugins: the kernel names no feature. A plugin adds commands by writing `builtin-plugins/<name>/cli.ts`
 * (default export: `defineCliCommands({...})` from sdk/cli.ts) and listing it here.
 */
import type { CliApi, CliContribution, CliRateRule } from '../sdk/cli.js';
import analytics from './analytics/cli.js';
import apiKeys from './api-keys/cli.js';
import backups from './backups/cli.js';
import chain from './chain/cli.js';
import contacts from './contacts/cli.js';
import dlq from './dlq/cli.js';
import exportsCli from './exports/cli.js';
import mcpPassthrough from './mcp-passthrough/cli.js';
import payback from './payback-methods/cli.js';
import paymentRequests from './payment-requests/cli.js';
import pluginsAdmin from './plugins-admin/cli.js';
import routing from './routing/cli.js';
import system from './system/cli.js';
import wallet from './wallet/cli.js';
import webhooks from './webhooks/cli.js';

export const builtinCliContributions: readonly CliContribution[] = [wallet, system, apiKeys, pluginsAdmin, contacts, dlq, paymentRequests, payback, analytics, backups, exportsCli, routing, chain, mcpPassthrough, webhooks];

const rule = (max: number, windowSeconds: number, blockSeconds: number): CliRateRule => ({ max, windowSeconds, blockSeconds });

/**
 * Per-wallet rate limits of Document 2 ("Command-line rate limits"), by top-level command. The table lives here,
 * beside the plugins that own the commands, so a plugin that arrives later inherits its row without repeating it;
 * a contribution's own `rateLimits` take precedence. Every other command: 100 per 60 s, blocked 5 minutes.
 * refund has no block time in Document 2: over the limit it waits for the oldest use to leave the window.
 */
export const builtinCliRateLimits: Readonly<Record<string, CliRateRule>> = {
  send: rule(30, 60, 300),
  contact: rule(20, 60, 300),
  generate: rule(5, 300, 900),
  backup: rule(10, 60, 300),
  chaindrop: rule(10, 60, 300),
  report: rule(10, 60, 300),
  p2p: rule(30, 60, 300),
  request: rule(20, 60, 300),
  refund: rule(20, 60, 0),
};

/**
 * How node-cli learns the node's public key hash (`metadata.node_id`, the key of its rate limits): the wallet
 * plugin's info route. Null when that plugin is not running or the node does not answer in time.
 */
export async function identifyNode(api: CliApi, timeoutMs: number): Promise<string | null> {
  const res = await api.raw('GET', '/api/v1/wallet/info', { timeoutMs });
  const hash = (res.body as { data?: { public_key_hash?: unknown } } | null)?.data?.public_key_hash;
  return res.status === 200 && typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash) ? hash : null;
}

/** Whether `keyId` is an admin key: only admin keys may read a key's record (`GET /api/v1/keys/:key_id`). */
export async function isAdminKey(api: CliApi, keyId: string): Promise<boolean> {
  const res = await api.raw('GET', `/api/v1/keys/${encodeURIComponent(keyId)}`);
  return res.status === 200;
}
