import { BlockList, isIP } from 'node:net';

/** Narrowest-allowed prefixes: a trusted proxy is a host or a small subnet, never a whole network. */
const MIN_PREFIX = { ipv4: 24, ipv6: 64 } as const;

export interface TrustedProxies {
  readonly entries: readonly string[];
  includes(ip: string): boolean;
}

/** Parses a comma-separated list of IPs and narrow CIDRs; returns an error message for the first bad entry. */
export function parseTrustedProxies(input: string | readonly string[]): TrustedProxies | string {
  const items = (typeof input === 'string' ? input.split(',') : input).map((s) => s.trim()).filter(Boolean);
  const list = new BlockList();
  for (const item of items) {
    const [addr, prefixText] = item.split('/');
    const family = isIP(addr ?? '');
    if (!addr || family === 0) return `"${item}" is not an IP address or CIDR`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) {
      list.addAddress(addr, type);
      continue;
    }
    if (!/^\d{1,3}$/.test(prefixText)) return `"${item}" has an invalid prefix length`;
    const prefix = Number(prefixText);
    const max = type === 'ipv4' ? 32 : 128;
    if (prefix > max) return `"${item}" has an invalid prefix length`;
    if (prefix < MIN_PREFIX[type]) {
      return `"${item}" is too broad: trust single proxies or ranges of at least /${MIN_PREFIX[type]}`;
    }
    list.addSubnet(addr, prefix, type);
  }
  return {
    entries: items,
    includes(ip: string): boolean {
      // No list (the usual case): no address to parse on every request.
      if (!items.length) return false;
      const bare = normalizeIp(ip);
      const family = isIP(bare);
      if (family === 0) return false;
      return list.check(bare, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** Socket addresses of IPv4 clients on a dual-stack listener arrive as `::ffff:a.b.c.d`. */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** This machine: the Tor daemon and a local reverse proxy connect from here on behalf of many clients. */
export function isLoopback(ip: string): boolean {
  const bare = normalizeIp(ip);
  return bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}
