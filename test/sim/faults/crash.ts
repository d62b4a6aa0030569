/**
 * Crashes and restarts: a node stops as a killed process does (nodes.ts `crash`) and a new instance starts on its
 * data directory after a seeded down time. The points a crash can hit an exchange at, as its node sees it:
 *   send     the sender dies as the message leaves: its commit is on disk, the message never went out;
 *   receive  the receiver dies as the message arrives: nothing of it was committed;
 *   reply    the receiver handles the message and commits, then dies before its answer goes back.
 */
import { owner, type VirtualClock } from '../clock.js';
import type { SimNode } from '../nodes.js';
import type { Rng } from '../random.js';

export type CrashPoint = 'send' | 'receive' | 'reply';
export const CRASH_POINTS: readonly CrashPoint[] = ['send', 'receive', 'reply'];

export class Crashes {
  count = 0;
  readonly failures: string[] = [];

  constructor(
    private readonly nodes: readonly SimNode[],
    private readonly clock: VirtualClock,
    private readonly rng: Rng,
    private readonly downMs: number,
    private readonly note: (line: string) => void,
  ) {}

  /** Kills node i (if it runs) and schedules its restart; false when it was down already. */
  crash(i: number, point: CrashPoint, what: string): boolean {
    const node = this.nodes[i];
    if (!node?.alive) return false;
    node.crash();
    this.count++;
    const down = this.rng.int(Math.ceil(this.downMs / 2), this.downMs);
    this.note(`crash n${i} at ${point} of ${what}, down ${down} ms`);
    // The restart belongs to no node: a timer set inside the dying node's work would die with it.
    owner.exit(() =>
      setTimeout(() => {
        this.clock.hold(
          node.restart().then(
            () => this.note(`restart n${i}`),
            (err: unknown) => this.failures.push(`n${i} did not restart: ${err instanceof Error ? err.message : String(err)}`),
          ),
        );
      }, down),
    );
    return true;
  }

  /** Whether every crashed node is up again. */
  allUp(): boolean {
    return this.nodes.every((n) => n.alive);
  }
}
