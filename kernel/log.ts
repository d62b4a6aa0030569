import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import type { LogEntry, Logger, LogLevel } from '../sdk/index.js';
import { escapeUnsafeText } from '../sdk/text.js';

const RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40, CRITICAL: 50 };

export type LogFormat = 'text' | 'json';

/**
 * The REST request being served, so every line logged on its behalf, by whichever module, names it. The scope holds a
 * reader rather than the id: the scope opens before the HTTP pipeline gives the request its id.
 */
const requestScope = new AsyncLocalStorage<() => string | undefined>();

export function inRequest<T>(requestId: () => string | undefined, fn: () => T): T {
  return requestScope.run(requestId, fn);
}

/**
 * Runs background work (a job, a batch of outgoing messages) outside any request: started from a request, it would
 * otherwise carry that request's id into everything it later does for others, timers it arms included.
 */
export function outsideRequest<T>(fn: () => T): T {
  return requestScope.exit(fn);
}

/** A UTF-16 unit as a JSON escape: what stays valid JSON for any unsafe character, astral ones as surrogate pairs. */
const jsonEscape = (ch: string): string => ch.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/**
 * One line per entry. Messages and fields may carry what peers or clients wrote, so control, bidirectional and line
 * separator characters are escaped in both formats: a line stays one line and cannot act on a terminal.
 */
export function formatLine(format: LogFormat, entry: LogEntry): string {
  if (format === 'json') {
    const record = {
      time: entry.at,
      level: entry.level,
      component: entry.source,
      message: entry.message,
      ...(entry.request_id ? { request_id: entry.request_id } : {}),
      ...(entry.fields ? { fields: entry.fields } : {}),
    };
    return escapeUnsafeText(JSON.stringify(record), jsonEscape) + '\n';
  }
  const fields = entry.fields ? ' ' + JSON.stringify(entry.fields) : '';
  // Last, so the line reads as it always did; not twice when the caller passed it among its fields already.
  const id = entry.request_id && entry.fields?.request_id !== entry.request_id ? ` request_id=${entry.request_id}` : '';
  return escapeUnsafeText(`${entry.at} ${entry.level} [${entry.source}] ${entry.message}${fields}${id}`) + '\n';
}

/**
 * One log for the node: a bounded in-memory ring (for debug reports), stderr, and an append-only file.
 * Callers never pass secrets; fields are serialised as given.
 */
export class LogSink {
  #ring: LogEntry[] = [];
  level: LogLevel = 'INFO';
  maxEntries = 1000;

  constructor(
    private readonly file: string | null,
    private readonly echo: boolean,
    private readonly format: LogFormat = 'text',
  ) {}

  write(level: LogLevel, source: string, message: string, fields?: Record<string, unknown>): void {
    if (RANK[level] < RANK[this.level]) return;
    const requestId = requestScope.getStore()?.();
    const entry: LogEntry = {
      at: new Date().toISOString(),
      level,
      source,
      message,
      ...(requestId ? { request_id: requestId } : {}),
      ...(fields ? { fields } : {}),
    };
    this.#ring.push(entry);
    if (this.#ring.length > this.maxEntries) this.#ring.splice(0, this.#ring.length - this.maxEntries);
    const line = formatLine(this.format, entry);
    if (this.echo) process.stderr.write(line);
    if (this.file) {
      try {
        appendFileSync(this.file, line, { mode: 0o600 });
      } catch {
        // the ring still holds the entry; a full disk must not take the node down
      }
    }
  }

  recent(limit = 50): LogEntry[] {
    return this.#ring.slice(-limit);
  }

  logger(source: string): Logger {
    return {
      debug: (m, f) => this.write('DEBUG', source, m, f),
      info: (m, f) => this.write('INFO', source, m, f),
      warn: (m, f) => this.write('WARNING', source, m, f),
      error: (m, f) => this.write('ERROR', source, m, f),
    };
  }
}
