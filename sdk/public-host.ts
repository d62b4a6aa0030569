/**
 * Which hosts count as outside this node's own network: the edge rule of the peer layer (an address a stranger names
 * must not make the node probe loopback, private or link-local ranges), shared with every plugin that connects to
 * an address someone else chose (webhook targets).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP literal is loopback, private, link-local, unspecified or multicast (IPv4-mapped IPv6 included). */
export function isNonPublicIp(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return NON_PUBLIC.check(mapped[1]!, 'ipv4');
  const family = isIP(ip);
  if (family === 4) return NON_PUBLIC.check(ip, 'ipv4');
  if (family === 6) return NON_PUBLIC.check(ip, 'ipv6');
  return false;
}

/**
 * Whether a URL's host name (brackets of an IPv6 literal allowed) resolves only to public addresses; `localhost`
 * names and names that do not resolve do not qualify. An `.onion` name is the caller's to judge (it never resolves).
 */
export async function resolvesToPublic(hostname: string): Promise<boolean> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return !isNonPublicIp(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return false;
  try {
    const all = await lookup(host, { all: true });
    return all.length > 0 && all.every((a) => !isNonPublicIp(a.address));
  } catch {
    return false;
  }
}
