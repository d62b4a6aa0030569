import type { SettingDefinition } from '../sdk/index.js';
import { parseHostname } from './config.js';
import { normalizeOriginList, originListProblem } from './net/origins.js';
import { parseTrustedProxies } from './net/proxies.js';

const days = (key: string, def: number, description: string): SettingDefinition => ({
  key, type: 'integer', default: def, min: 1, max: 36500, category: 'retention', description,
});

/** Settings of the kernel's own mechanisms (HTTP API, logging, transports). Plugins declare the rest. */
export const kernelSettings: readonly SettingDefinition[] = [
  { key: 'name', type: 'string', default: '', category: 'node', description: 'Node display name',
    validate: (v) => (String(v).length > 64 ? 'must be at most 64 characters' : null) },
  { key: 'hostname', type: 'string', default: '', category: 'node',
    description: 'Node locator URL; sets the HTTP and HTTPS addresses (empty: derived from the listener)',
    validate: (v) => (v === '' || parseHostname(String(v)) ? null : 'must be a URL like http://host:port'),
    normalize: (v) => (v === '' ? '' : parseHostname(String(v))) },
  { key: 'apiEnabled', security: true, type: 'boolean', default: true, category: 'api', description: 'Serve the REST API (health stays up when off)' },
  { key: 'apiCorsAllowedOrigins', security: true, type: 'string', default: '', category: 'api',
    description: 'Comma-separated origins (scheme://host[:port]) allowed by CORS; * allows any; empty allows none',
    validate: (v) => originListProblem(String(v)), normalize: (v) => normalizeOriginList(String(v)) },
  { key: 'rateLimitEnabled', security: true, type: 'boolean', default: true, category: 'api',
    description: "Enforce each API key's requests per minute (its rate_limit_per_minute). Off lifts only that limit: the block of client addresses that keep failing authentication (rateLimitMaxAttempts) and the peer message limit (p2pRateLimitPerMinute) stay, as they guard against attackers, not clients" },
  // Failed authentications per client address (kernel/auth/failure-limiter.ts)
  { key: 'rateLimitMaxAttempts', security: true, type: 'integer', default: 10, min: 1, max: 100_000, category: 'rate_limits',
    description: 'Failed authentications one client address may make per window; the last one blocks it' },
  { key: 'rateLimitWindowSeconds', security: true, type: 'integer', default: 60, min: 1, max: 86_400, category: 'rate_limits',
    description: 'Window in seconds over which failed authentications are counted' },
  { key: 'rateLimitBlockSeconds', security: true, type: 'integer', default: 300, min: 1, max: 86_400, category: 'rate_limits',
    description: 'How long a client address that reached the limit is refused (429)' },
  { key: 'trustedProxies', security: true, type: 'list', default: [], category: 'api', env: 'TRUSTED_PROXIES',
    description: 'Proxy IPs or narrow CIDRs whose forwarding headers are trusted; empty clears (TRUSTED_PROXIES overrides)',
    validate: (v) => { const r = parseTrustedProxies(v as string[]); return typeof r === 'string' ? r : null; } },
  // Connection slots per client address (kernel/net/listener.ts): read at each new connection.
  { key: 'connectionsPerAddress', security: true, type: 'integer', default: 64, min: 8, max: 100_000, category: 'rate_limits',
    description: 'Connections one client address may hold at once; more wait for a slot (idle keep-alive connections give theirs up). Below 64 a busy peer may wait' },
  { key: 'connectionsPerProxyAddress', security: true, type: 'integer', default: 1024, min: 8, max: 100_000, category: 'rate_limits',
    description: 'Connections a shared address may hold at once: a trusted proxy (trustedProxies) or, with Tor on, this machine (the Tor daemon). Its clients are told apart by their keys and credentials, not by this budget' },
  { key: 'metricsAllowedAddresses', security: true, type: 'list', default: ['127.0.0.1', '::1'], category: 'api', env: 'NODE_METRICS_ALLOWED_ADDRESSES',
    description: 'Client IPs or narrow CIDRs that may read GET /metrics without the bearer token (NODE_METRICS_TOKEN); empty: token only',
    validate: (v) => { const r = parseTrustedProxies(v as string[]); return typeof r === 'string' ? r : null; } },
  { key: 'logLevel', type: 'enum', default: 'INFO', options: ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'], category: 'logging', description: 'Lowest level written to the log' },
  { key: 'logMaxEntries', type: 'integer', default: 100, min: 10, max: 1_000_000, category: 'logging', description: 'Log entries kept in memory for debug reports' },
  { key: 'defaultTransportMode', type: 'enum', default: 'tor', options: ['http', 'https', 'tor'], category: 'network', description: 'Preferred transport toward peers' },
  { key: 'httpTransportTimeoutSeconds', type: 'integer', default: 15, min: 5, max: 120, category: 'network', description: 'HTTP(S) request timeout toward peers' },
  { key: 'torTransportTimeoutSeconds', type: 'integer', default: 45, min: 10, max: 300, category: 'network', description: 'Tor request timeout toward peers' },
  { key: 'torCircuitMaxFailures', type: 'integer', default: 3, min: 1, max: 10, category: 'network', description: 'Tor failures toward one peer before its circuit cools down' },
  { key: 'torCircuitCooldownSeconds', type: 'integer', default: 300, min: 60, max: 3600, category: 'network', description: 'How long a failing Tor peer is skipped' },
  { key: 'torFailureTransportFallback', type: 'boolean', default: true, category: 'network', description: 'Fall back to HTTPS/HTTP when Tor fails' },
  { key: 'torFallbackRequireEncrypted', type: 'boolean', default: true, category: 'network', description: 'Only fall back from Tor to HTTPS, never to plain HTTP' },
  days('cleanupDeliveryRetentionDays', 30, 'Days delivered messages are kept'),
  days('cleanupDlqRetentionDays', 90, 'Days resolved or abandoned dead letters are kept'),
  days('cleanupMetricsRetentionDays', 90, 'Days the daily peer traffic counts (GET /system/metrics) are kept'),
];
