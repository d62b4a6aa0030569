/**
 * Peer traffic per UTC day: messages in and out by type and result, the history GET /system/metrics shows beside the
 * counters since start (Document 2's `cleanupMetricsRetentionDays` keeps it). Counted in memory on the hot path and
 * written by a minute's job, so a message costs no write of its own; the minute not yet written is lost on a crash,
 * which a statistic can afford.
 */
import type { PeerTrafficDay } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import type { PeerMessageCounter } from './client.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export class PeerTrafficDays {
  /** Not yet written: `day\0direction\0type\0result` → count. */
  readonly #pending = new Map<string, number>();
  readonly #add;
  readonly #list;
  readonly #prune;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    this.#add = db.prepare(
      `INSERT INTO peer_traffic_days (day, direction, type, result, count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (day, direction, type, result) DO UPDATE SET count = count + excluded.count`,
    );
    this.#list = db.prepare('SELECT day, direction, type, result, count FROM peer_traffic_days ORDER BY day, direction, type, result');
    this.#prune = db.prepare('DELETE FROM peer_traffic_days WHERE day < ?');
  }

  readonly counted: PeerMessageCounter = (direction, type, result) => {
    const key = `${dayOf(this.now())}\0${direction}\0${type}\0${result}`;
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
  };

  /** Writes the counts held in memory; on a refused write they stay for the next run. */
  flush(): void {
    if (this.#pending.size === 0) return;
    const entries = [...this.#pending];
    this.db.transaction(() => {
      for (const [key, count] of entries) this.#add.run(...key.split('\0'), count);
    })();
    for (const [key, count] of entries) {
      const left = (this.#pending.get(key) ?? 0) - count;
      if (left > 0) this.#pending.set(key, left);
      else this.#pending.delete(key);
    }
  }

  /** Every day kept, the counts not yet written included. */
  days(): PeerTrafficDay[] {
    const byKey = new Map<string, PeerTrafficDay>();
    for (const row of this.#list.all() as PeerTrafficDay[]) byKey.set(`${row.day}\0${row.direction}\0${row.type}\0${row.result}`, row);
    for (const [key, count] of this.#pending) {
      const [day, direction, type, result] = key.split('\0') as [string, 'in' | 'out', string, string];
      const row = byKey.get(key);
      if (row) row.count += count;
      else byKey.set(key, { day, direction, type, result, count });
    }
    return [...byKey.values()].sort((a, b) => (a.day + a.direction + a.type + a.result).localeCompare(b.day + b.direction + b.type + b.result));
  }

  /** Drops the days wholly older than `days` days before now. */
  prune(days: number): void {
    this.flush();
    this.#prune.run(dayOf(this.now() - days * DAY_MS));
  }
}
