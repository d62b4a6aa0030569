import type { Clock, JobDefinition, JobsMechanism, Logger, ProcessorState } from '../sdk/index.js';
import { systemClock } from './clock.js';
import { outsideRequest } from './log.js';

interface JobSlot {
  owner: string;
  def: JobDefinition;
  timer: NodeJS.Timeout | null;
  /** When the armed timer runs the job (the clock's time), null while none is armed. */
  nextAt: number | null;
  busy: Promise<void> | null;
  again: boolean;
  lastRunAt: number | null;
  lastError: string | null;
}

const DAY_MS = 86_400_000;
/** setTimeout's ceiling (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

function msUntilDaily(now: number, hour: number, minute: number): number {
  const d = new Date(now);
  let next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour, minute);
  if (next <= now) next += DAY_MS;
  return next - now;
}

/**
 * Background work. Jobs run when kicked (right after the commit that created their work) and on their own
 * schedule only for retries, expiries and daily tasks. A job never overlaps itself; a kick during a run
 * queues exactly one more run, so no work created meanwhile is missed.
 */
export class JobRunner implements JobsMechanism {
  #slots = new Map<string, JobSlot>();
  #running = false;

  /** `clock` is the time schedules are computed in (tests shift it to reach a daily time at once). */
  constructor(
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
    /** Told of every run and whether it succeeded (metrics). */
    private readonly ran: (job: string, ok: boolean) => void = () => {},
  ) {}

  register(owner: string, def: JobDefinition): string {
    const id = `${owner}.${def.name}`;
    if (this.#slots.has(id)) throw new Error(`job ${id} is registered twice`);
    const slot: JobSlot = { owner, def, timer: null, nextAt: null, busy: null, again: false, lastRunAt: null, lastError: null };
    this.#slots.set(id, slot);
    if (this.#running) this.#schedule(slot);
    return id;
  }

  /** Forgets an owner's jobs (its plugin stopped); waits for runs in progress. */
  async removeOwner(owner: string): Promise<void> {
    const busy: Promise<void>[] = [];
    for (const [id, slot] of this.#slots) {
      if (slot.owner !== owner) continue;
      this.#unschedule(slot);
      if (slot.busy) busy.push(slot.busy);
      this.#slots.delete(id);
    }
    await Promise.allSettled(busy);
  }

  kick(id: string): void {
    const slot = this.#slots.get(id);
    if (!slot || !this.#running) return;
    void this.#run(slot);
  }

  /** Asks the job's schedule again now and re-arms it (what the schedule depends on, such as a setting, changed). */
  reschedule(id: string): void {
    const slot = this.#slots.get(id);
    if (slot && this.#running) this.#schedule(slot);
  }

  /** When the job's next timed run is armed (ms since the epoch, the runner's clock), or null. */
  nextRun(id: string): number | null {
    return this.#slots.get(id)?.nextAt ?? null;
  }

  start(): void {
    this.startAll();
  }

  startAll(): number {
    if (this.#running) return 0;
    this.#running = true;
    for (const slot of this.#slots.values()) this.#schedule(slot);
    return this.#slots.size;
  }

  stopAll(): number {
    if (!this.#running) return 0;
    this.#running = false;
    let stopped = 0;
    for (const slot of this.#slots.values()) {
      this.#unschedule(slot);
      stopped++;
    }
    return stopped;
  }

  /** Stops scheduling and waits for runs in progress (used when draining on shutdown). */
  async drain(): Promise<void> {
    this.stopAll();
    await Promise.allSettled([...this.#slots.values()].map((s) => s.busy).filter(Boolean));
  }

  running(): boolean {
    return this.#running;
  }

  processorRunning(processor: string): boolean {
    if (!this.#running) return false;
    for (const slot of this.#slots.values()) if (slot.def.processor === processor) return true;
    return false;
  }

  states(): ProcessorState[] {
    return [...this.#slots.entries()].map(([id, s]) => ({
      name: id,
      processor: s.def.processor ?? null,
      running: this.#running,
      busy: s.busy !== null,
      last_run_at: s.lastRunAt ? new Date(s.lastRunAt).toISOString() : null,
      last_error: s.lastError,
    }));
  }

  #schedule(slot: JobSlot): void {
    this.#unschedule(slot);
    const now = this.clock.now();
    const delay = this.#delay(slot.def, now);
    if (delay !== null) this.#arm(slot, now + delay);
  }

  /** A run at `at`; a time beyond setTimeout's reach is approached in steps, without running early. */
  #arm(slot: JobSlot, at: number): void {
    slot.nextAt = at;
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (this.clock.now() < at) return this.#arm(slot, at);
      slot.nextAt = null;
      void this.#run(slot).finally(() => {
        if (this.#running && this.#slots.get(`${slot.owner}.${slot.def.name}`) === slot) this.#schedule(slot);
      });
    }, Math.min(Math.max(0, at - this.clock.now()), MAX_TIMER_MS));
    slot.timer.unref();
  }

  #delay(def: JobDefinition, now: number): number | null {
    if (def.everyMs !== undefined) return def.everyMs;
    if (def.dailyAt) return msUntilDaily(now, def.dailyAt.hour, def.dailyAt.minute);
    const at = def.nextRunAt?.(now) ?? null;
    return at === null ? null : Math.max(0, at - now);
  }

  #unschedule(slot: JobSlot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.nextAt = null;
  }

  #run(slot: JobSlot): Promise<void> {
    if (slot.busy) {
      slot.again = true;
      return slot.busy;
    }
    const run = async (): Promise<void> => {
      do {
        slot.again = false;
        slot.lastRunAt = this.clock.now();
        try {
          await slot.def.run();
          slot.lastError = null;
          this.ran(`${slot.owner}.${slot.def.name}`, true);
        } catch (err) {
          slot.lastError = err instanceof Error ? err.message : String(err);
          this.log.error(`job ${slot.owner}.${slot.def.name} failed`, { error: slot.lastError });
          this.ran(`${slot.owner}.${slot.def.name}`, false);
        }
      } while (slot.again && this.#running);
    };
    slot.busy = outsideRequest(run).finally(() => {
      slot.busy = null;
    });
    return slot.busy;
  }
}
