/**
 * Drops the entries of a sliding window at or before `since`, in place. Entries are appended as they happen, oldest
 * first, so the expired ones lead: pruning never copies a busy window (hundreds of entries a minute). Used by the
 * host's route limits and by plugins that count their own windows (mcp-passthrough's per-key limits).
 */
export function dropExpired<T>(entries: T[], at: (e: T) => number, since: number): void {
  let i = 0;
  while (i < entries.length && at(entries[i]!) <= since) i++;
  if (i) entries.splice(0, i);
}
