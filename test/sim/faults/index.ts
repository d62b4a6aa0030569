/**
 * The faults added on top of the run's drop, duplicate and delay (run.ts): partitions that heal, crashes with
 * restarts, clock skew (set when the nodes start: skew.ts). `faultyLink` wraps the run's link: an exchange cut by a
 * partition or hit by a crash never reaches the run's link, or its answer is lost on the way back.
 */
import type { MemoryLink } from '../../../kernel/peers/transport-memory.js';
import type { VirtualClock } from '../clock.js';
import type { Rng } from '../random.js';
import { CRASH_POINTS, type Crashes } from './crash.js';
import { cut, type Partition } from './partition.js';

export interface MoreFaults {
  /** Partitions that heal during the workload: how many, each lasting `partitionMs` virtual ms. */
  partitions?: number;
  partitionMs?: number;
  /** Probability per exchange that one of its ends crashes (crash.ts), down for `downMs` at most before it restarts. */
  crash?: number;
  downMs?: number;
  /** Largest offset of a node's clock from the virtual time, ms either way. */
  skewMs?: number;
}

export interface FaultyLinkEnv {
  clock: VirtualClock;
  rng: Rng;
  faults: MoreFaults;
  partitions: readonly Partition[];
  crashes: Crashes;
  indexOf: (address: string) => number;
  note: (line: string) => void;
  /** Counts one injected fault. */
  fault: () => void;
}

const never = (): Promise<never> => new Promise<never>(() => {});

export function faultyLink(inner: MemoryLink, env: FaultyLinkEnv): MemoryLink {
  return async (exchange, deliver) => {
    const a = env.indexOf(exchange.from);
    const b = env.indexOf(exchange.request.address);
    const what = `${a}>${b} ${exchange.request.method} ${exchange.request.path}`;
    if (cut(env.partitions, a, b, env.clock.now())) {
      env.fault();
      env.note(`partition request ${what}`);
      return never();
    }
    let send = deliver;
    if (env.rng.chance(env.faults.crash ?? 0)) {
      const point = env.rng.pick(CRASH_POINTS);
      if (point === 'send' && env.crashes.crash(a, point, what)) return never();
      if (point === 'receive' && env.crashes.crash(b, point, what)) return never();
      if (point === 'reply') {
        send = async () => {
          const answer = await deliver();
          return env.crashes.crash(b, point, what) ? never() : answer;
        };
      }
    }
    const answer = await inner(exchange, send);
    if (cut(env.partitions, a, b, env.clock.now())) {
      env.fault();
      env.note(`partition answer ${what}`);
      return never();
    }
    return answer;
  };
}
