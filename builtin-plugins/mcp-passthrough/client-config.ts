/**
 * What a customer pastes into a client: the node's MCP endpoint and a configuration naming it with the key's bearer
 * token, in the `mcpServers` shape that Claude Code (`.mcp.json`), Cursor and most clients read; and the base URL of
 * the OpenAI-compatible door, which OpenAI SDKs take with the same token as their API key.
 */
import type { NodeAddresses } from '../../sdk/index.js';

export const MCP_PATH = '/p/mcp-passthrough/mcp';
/** The OpenAI-compatible door's base URL path: SDKs append `/chat/completions` and `/models`. */
export const OPENAI_PATH = '/p/mcp-passthrough/v1';

/** The address customers reach: HTTPS first (internet clients), else HTTP, else the onion (Tor-capable clients). */
export function customerEndpoint(addresses: NodeAddresses, path = MCP_PATH): string | null {
  const base = addresses.https ?? addresses.http ?? addresses.tor;
  return base ? `${base.replace(/\/+$/, '')}${path}` : null;
}

export function mcpClientConfig(endpoint: string, token: string): Record<string, unknown> {
  return {
    mcpServers: {
      'wallet-node': { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${token}` } },
    },
  };
}
