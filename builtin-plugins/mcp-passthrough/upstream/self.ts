/**
 * Whether an upstream endpoint is this node itself. Such a provider would send every customer call back into the
 * node's own door (a loop that bills itself), and it is the easy mistake: llama.cpp's server and the node both
 * default to port 8080.
 */
import type { NodeInfo } from '../../../sdk/index.js';

const defaultPort = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

const bare = (host: string): string => host.replace(/^\[|\]$/g, '').toLowerCase();

/** Names every machine gives itself: localhost, 127.0.0.0/8, ::1, and the wildcard a listener binds. */
function isLoopback(host: string): boolean {
  const h = bare(host);
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::1' || h === '0.0.0.0' || h === '::';
}

/** One of the node's own addresses as a URL: the onion address comes without a scheme (and is served on port 80). */
function ownUrl(address: string): URL | null {
  try {
    return new URL(address.includes('://') ? address : `http://${address}`);
  } catch {
    return null;
  }
}

/** The address of this node that `endpoint` names, or null: one of its own addresses, or its listener's port here. */
export function ownAddressIn(endpoint: string, node: Pick<NodeInfo, 'addresses' | 'listener'>): string | null {
  const url = new URL(endpoint);
  const port = defaultPort(url);
  for (const own of [node.addresses.http, node.addresses.https, node.addresses.tor]) {
    const address = own ? ownUrl(own) : null;
    if (!address) continue;
    if (bare(address.hostname) === bare(url.hostname) && defaultPort(address) === port) return address.host;
  }
  const { host, port: listening } = node.listener;
  const local = isLoopback(url.hostname) || bare(url.hostname) === bare(host);
  return local && port === listening ? `${url.hostname}:${port}` : null;
}
