/** Calendar dates in query strings (exports, listings): `YYYY-MM-DD`, read as UTC days. */
import { ApiError } from './replies.js';

export const DAY_MS = 86_400_000;

/** A calendar date `YYYY-MM-DD` (UTC) as the ms of its start; February 30 is refused, not rolled over. */
export function parseDay(field: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw.trim()) {
    throw new ApiError('validation_error', 400, `${field} must be a date YYYY-MM-DD (UTC)`, { field });
  }
  return ms;
}

/** `from` and `to` days, both included, as the ms range [from, to) they cover; `from` after `to` is refused. */
export function dayRange(q: { from?: string | undefined; to?: string | undefined }): { from?: number; to?: number } {
  const from = parseDay('from', q.from);
  const to = parseDay('to', q.to);
  if (from !== undefined && to !== undefined && from > to) throw new ApiError('validation_error', 400, 'from must not be after to', { field: 'from' });
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to: to + DAY_MS } : {}) };
}
