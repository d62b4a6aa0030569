import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LogFormat } from './log.js';
import { parseTrustedProxies, type TrustedProxies } from './net/proxies.js';

/** Everything the node reads from its environment. Bad values fail fast, naming the variable. */
export interface NodeConfig {
  dataDir: string;
  port: number;
  bind: string;
  /** Locator URL (`http://host:port`); sets the http and https addresses. Null: derived from bind and port. */
  hostname: string | null;
  torSocks: { host: string; port: number };
  /** Whether this node publishes its onion address (a Tor hidden service points at it: the Docker image). */
  torEnabled: boolean;
  /** Node-wide ceiling for `/p/<plugin>/<action>` routes. */
  publicPluginRoutes: 'allow' | 'deny';
  testMode: boolean;
  /** TRUSTED_PROXIES overrides the `trustedProxies` setting when set. */
  trustedProxies: TrustedProxies | null;
  /** A 24-word mnemonic to restore from on first start (RESTORE or the file named by RESTORE_FILE). */
  restoreMnemonic: string | null;
  environment: string;
  /** The bearer token that grants `GET /metrics` from any address (NODE_METRICS_TOKEN); null: listed addresses only. */
  metricsToken: string | null;
  /** LOG_FORMAT: `text` (default) or `json`, one object per line. */
  logFormat: LogFormat;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

function parseBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

function parsePort(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(name, `expected a port number 0-65535, got "${raw}"`);
  }
  return Number(raw);
}

function parseHostPort(env: Env, name: string, fallback: string): { host: string; port: number } {
  const raw = (env[name]?.trim() || fallback).replace(/^socks5h?:\/\//, '');
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(raw);
  if (!match || Number(match[2]) > 65535 || Number(match[2]) === 0) {
    throw new ConfigError(name, `expected host:port, got "${raw}"`);
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

export function parseHostname(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.pathname !== '/' || url.search || url.hash || url.username) return null;
  return `${url.protocol}//${url.host}`;
}

const MIN_TOKEN_LENGTH = 16;

function readMetricsToken(env: Env): string | null {
  const token = env.NODE_METRICS_TOKEN?.trim();
  if (!token) return null;
  if (token.length < MIN_TOKEN_LENGTH) throw new ConfigError('NODE_METRICS_TOKEN', `must be at least ${MIN_TOKEN_LENGTH} characters`);
  return token;
}

function readLogFormat(env: Env): LogFormat {
  const raw = env.LOG_FORMAT?.trim().toLowerCase() || 'text';
  if (raw !== 'text' && raw !== 'json') throw new ConfigError('LOG_FORMAT', `expected text or json, got "${env.LOG_FORMAT}"`);
  return raw;
}

function readRestore(env: Env): string | null {
  const direct = env.RESTORE?.trim();
  const file = env.RESTORE_FILE?.trim();
  if (direct && file) throw new ConfigError('RESTORE_FILE', 'set either RESTORE or RESTORE_FILE, not both');
  if (direct) return direct;
  if (!file) return null;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new ConfigError('RESTORE_FILE', `cannot read "${file}"`);
  }
}

export function loadConfig(env: Env = process.env): NodeConfig {
  const hostnameRaw = env.NODE_HOSTNAME?.trim();
  const hostname = hostnameRaw ? parseHostname(hostnameRaw) : null;
  if (hostnameRaw && !hostname) {
    throw new ConfigError('NODE_HOSTNAME', `expected a URL like http://host:port, got "${hostnameRaw}"`);
  }
  const bind = env.NODE_BIND?.trim() || '127.0.0.1';
  const ceiling = (env.NODE_PUBLIC_PLUGIN_ROUTES?.trim().toLowerCase() || 'allow') as string;
  const publicPluginRoutes = TRUE.has(ceiling) || ceiling === 'allow' ? 'allow' : FALSE.has(ceiling) || ceiling === 'deny' ? 'deny' : null;
  if (!publicPluginRoutes) {
    throw new ConfigError('NODE_PUBLIC_PLUGIN_ROUTES', `expected allow or deny, got "${env.NODE_PUBLIC_PLUGIN_ROUTES}"`);
  }
  let trustedProxies: TrustedProxies | null = null;
  if (env.TRUSTED_PROXIES !== undefined) {
    const parsed = parseTrustedProxies(env.TRUSTED_PROXIES);
    if (typeof parsed === 'string') throw new ConfigError('TRUSTED_PROXIES', parsed);
    trustedProxies = parsed;
  }
  return {
    dataDir: resolve(env.NODE_DATA_DIR?.trim() || './data'),
    port: parsePort(env, 'NODE_PORT', 8080),
    bind,
    hostname,
    torSocks: parseHostPort(env, 'NODE_TOR_SOCKS', '127.0.0.1:9050'),
    torEnabled: parseBool(env, 'NODE_TOR_ENABLED', false),
    publicPluginRoutes,
    testMode: parseBool(env, 'NODE_TEST_MODE', false),
    trustedProxies,
    restoreMnemonic: readRestore(env),
    environment: env.NODE_ENV?.trim() || 'production',
    metricsToken: readMetricsToken(env),
    logFormat: readLogFormat(env),
  };
}

/**
 * Removes a variable from this process for the rest of its life: from process.env, so children do not inherit it,
 * and on Linux also from the environment block the kernel copied onto the stack at exec. That block is what
 * /proc/<pid>/environ shows for the whole life of the process, and unsetenv only drops the pointer to it, so the
 * bytes are overwritten in place through /proc/self/mem. Returns false when the block could not be cleaned (no
 * /proc, or writing our own memory is forbidden): the value then stays readable there, and RESTORE_FILE is the
 * way to keep it out.
 */
export function eraseEnvironmentVariable(name: string): boolean {
  delete process.env[name];
  if (process.platform !== 'linux') return false;
  const isEntry = (entry: string): boolean => entry.startsWith(`${name}=`);
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Counted after the command name (it may hold spaces or parentheses): env_start and env_end are fields 50 and 51.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) return false;
    const block = Buffer.alloc(end - start);
    const fd = openSync('/proc/self/mem', 'r+');
    try {
      readSync(fd, block, 0, block.length, start);
      let at = 0;
      for (const entry of block.toString('latin1').split('\0')) {
        // A Number position: a bigint one makes the kernel answer EIO.
        if (isEntry(entry)) writeSync(fd, Buffer.alloc(entry.length), 0, entry.length, start + at);
        at += entry.length + 1;
      }
    } finally {
      closeSync(fd);
    }
    return !readFileSync('/proc/self/environ', 'latin1').split('\0').some(isEntry);
  } catch {
    return false;
  }
}
