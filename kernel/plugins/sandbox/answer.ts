import { RawReply, Reply } from '../../../sdk/index.js';
import { ApiError } from '../../errors.js';
import type { CallOutcome } from './isolate.js';

const REPLY_HEADERS = new Set(['cache-control', 'content-disposition', 'etag', 'last-modified', 'link', 'location', 'retry-after', 'vary', 'www-authenticate']);
const ERROR_CODE = /^[a-z][a-z0-9_]{0,63}$/;

function replyHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === null || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw).slice(0, 16)) {
    const key = k.toLowerCase();
    const allowed = REPLY_HEADERS.has(key) || (key.startsWith('x-') && key !== 'x-request-id' && !key.startsWith('x-api-'));
    if (allowed && /^[a-z0-9-]{1,64}$/.test(key) && typeof v === 'string' && v.length <= 1024 && !/[\r\n\u0000]/.test(v)) out[key] = v;
  }
  return out;
}

function status(raw: unknown, min: number, max: number, fallback: number): number {
  return Number.isInteger(raw) && (raw as number) >= min && (raw as number) <= max ? (raw as number) : fallback;
}

/** A plugin's answer as the kernel's route pipeline takes it; whatever the plugin claims is checked first. */
export function answer(plugin: string, outcome: CallOutcome): unknown {
  switch (outcome.kind) {
    case 'ok':
      return outcome.value;
    case 'reply':
      return new Reply(outcome.data ?? null, status(outcome.status, 200, 299, 200), typeof outcome.message === 'string' ? outcome.message.slice(0, 1000) : undefined, replyHeaders(outcome.headers));
    case 'raw': {
      if (typeof outcome.body !== 'string') throw new ApiError('plugin_error', 500, `Plugin ${plugin} answered a raw reply without a string body`, { plugin, reason: 'bad_output' });
      const type = typeof outcome.type === 'string' && /^[\w.+-]+\/[\w.+-]+(;[ \w=.+-]*)?$/.test(outcome.type) ? outcome.type : 'text/plain; charset=utf-8';
      return new RawReply(outcome.body, type, status(outcome.status, 200, 599, 200), replyHeaders(outcome.headers));
    }
    case 'api': {
      const code = typeof outcome.code === 'string' && ERROR_CODE.test(outcome.code) ? outcome.code : 'plugin_error';
      const message = typeof outcome.message === 'string' ? outcome.message.slice(0, 1000) : 'Plugin error';
      const details = outcome.context !== null && typeof outcome.context === 'object' ? { details: outcome.context } : undefined;
      throw new ApiError(code, status(outcome.status, 400, 599, 500), message, details);
    }
  }
}
