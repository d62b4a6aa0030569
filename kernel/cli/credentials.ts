import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from '../../sdk/cli.js';
import { CLI_CREDENTIALS_FILE } from '../data-files.js';
import type { ApiCredentials } from './rest-client.js';


export interface ResolvedCredentials extends ApiCredentials {
  /** Where they came from, for error messages. */
  source: 'environment' | string;
}

type Env = Record<string, string | undefined>;

/** `--data-dir`, else NODE_DATA_DIR, else ./data (the node's own default). */
export function resolveDataDir(flag: string | null, env: Env, cwd: string): string {
  return resolve(cwd, flag ?? (env.NODE_DATA_DIR?.trim() || './data'));
}

const NO_CREDENTIALS = 'no node credentials: start the node first or set NODE_API_URL/NODE_API_KEY/NODE_API_SECRET';

/**
 * The credentials node-cli signs with: NODE_API_URL + NODE_API_KEY + NODE_API_SECRET when all three are set,
 * else `cli.json` in the data directory (written by the node on start, mode 600).
 */
export function resolveCredentials(dataDir: string, env: Env): ResolvedCredentials {
  const url = env.NODE_API_URL?.trim();
  const key = env.NODE_API_KEY?.trim();
  const secret = env.NODE_API_SECRET?.trim();
  if (url || key || secret) {
    if (!url || !key || !secret) {
      const missing = [!url && 'NODE_API_URL', !key && 'NODE_API_KEY', !secret && 'NODE_API_SECRET'].filter(Boolean);
      throw new CliError('NO_CREDENTIALS', `incomplete node credentials: also set ${missing.join(', ')}`);
    }
    return { baseUrl: checkUrl(url, 'NODE_API_URL'), keyId: key, secret, source: 'environment' };
  }
  const file = join(dataDir, CLI_CREDENTIALS_FILE);
  if (!existsSync(file)) throw new CliError('NO_CREDENTIALS', `${NO_CREDENTIALS} (looked for ${file})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : 'not valid JSON';
    throw new CliError('NO_CREDENTIALS', `cannot read ${file}: ${reason}`);
  }
  const c = parsed as Record<string, unknown>;
  if (typeof c.base_url !== 'string' || typeof c.key_id !== 'string' || typeof c.secret !== 'string') {
    throw new CliError('NO_CREDENTIALS', `${file} lacks base_url, key_id or secret; restart the node to rewrite it`);
  }
  return { baseUrl: checkUrl(c.base_url, file), keyId: c.key_id, secret: c.secret, source: file };
}

function checkUrl(value: string, source: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.toString();
  } catch {
    throw new CliError('NO_CREDENTIALS', `${source}: not an http(s) URL: ${value}`);
  }
}
