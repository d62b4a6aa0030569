/**
 * What a customer pastes into an MCP client: the node's customer endpoint and a configuration naming it with the
 * key's bearer token, in the `mcpServers` shape that Claude Code (`.mcp.json`), Cursor and most clients read.
 */
import type { NodeAddresses } from '../../sdk/index.js';

export const MCP_PATH = '/p/mcp-passthrough/mcp';

/** The address customers reach: HTTPS first (internet clients), else HTTP, else the onion (Tor-capable clients). */
export function customerEndpoint(addresses: NodeAddresses): string | null {
  const base = addresses.https ?? addresses.http ?? addresses.tor;
  return base ? `${base.replace(/\/+$/, '')}${MCP_PATH}` : null;
}

export function mcpClientConfig(endpoint: string, token: string): Record<string, unknown> {
  return {
    mcpServers: {
      'wallet-node': { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${token}` } },
    },
  };
}
