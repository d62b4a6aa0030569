/**
 * The simulator's virtual clock: while installed, the process's setTimeout/setInterval (and their clears) and Date
 * read a virtual time that moves only when the simulator fires the next timer. A simulated hour of retries, expiries
 * and jobs then takes as long as the work it holds. setImmediate, promises and process.nextTick stay real: they carry
 * the work of one instant, and `idle()` waits until none is left (the simulator counts the immediates it let out).
 * Timers due at the same instant fire in the order they were set, so a run is a function of its seed. performance.now
 * is virtual too (wall time is `wallNow`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is running: a simulated node (the simulator runs each node's start and each request it serves inside
 * `owner.run`, and timers and immediates keep the owner of the code that set them). A node's clock reads the
 * virtual time plus its skew; a crashed node's timers and immediates never fire (`alive` false), as a killed
 * process runs nothing more.
 */
export interface Owner {
  alive: boolean;
  skewMs: number;
}
export const owner = new AsyncLocalStorage<Owner>();
const nowFor = (t: number): number => t + (owner.getStore()?.skewMs ?? 0);

const real = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  setImmediate: globalThis.setImmediate,
  Date: globalThis.Date,
};

/** Whether a file system request is in flight in this process (libuv lists them among its active resources). */
const diskPending = (): boolean => process.getActiveResourcesInfo().some((type) => type.startsWith('FSReq'));

/** Real elapsed milliseconds, for the figures a run prints about itself. */
export const wallNow = performance.now.bind(performance);

interface Timer {
  id: number;
  at: number;
  every: number | null;
  fn: (...args: unknown[]) => void;
  args: unknown[];
  owner: Owner | undefined;
}

/** What code holding a timer may call on it (Node's Timeout). */
class Handle {
  constructor(readonly id: number) {}
  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

export class VirtualClock {
  #now: number;
  #seq = 0;
  /** Live timers by id; `#queue` is a binary heap on (time, order queued) that may hold stale entries (skipped). */
  readonly #timers = new Map<number, Timer>();
  readonly #queue: Entry[] = [];
  #order = 0;
  #immediates = 0;
  readonly #held = new Set<Promise<unknown>>();
  /** Timers fired so far (a measure of the work a run did). */
  fired = 0;

  constructor(start: number) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  install(): void {
    const clock = this;
    const set = (every: boolean) => (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Handle => {
      const delay = Math.max(1, Math.floor(Number(ms) || 0));
      const timer: Timer = { id: ++clock.#seq, at: clock.#now + delay, every: every ? delay : null, fn, args, owner: owner.getStore() };
      clock.#timers.set(timer.id, timer);
      clock.#push(timer);
      return new Handle(timer.id);
    };
    const clear = (handle: unknown): void => {
      if (handle === undefined || handle === null) return;
      clock.#timers.delete(Number(handle));
    };
    Object.assign(globalThis, {
      setTimeout: set(false),
      setInterval: set(true),
      clearTimeout: clear,
      clearInterval: clear,
      setImmediate: (fn: (...args: unknown[]) => void, ...args: unknown[]) => {
        clock.#immediates++;
        const by = owner.getStore();
        return real.setImmediate(() => {
          clock.#immediates--;
          if (by && !by.alive) return;
          fn(...args);
        });
      },
    });
    class SimDate extends real.Date {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(nowFor(clock.#now));
        else super(...(args as [number]));
      }
      static override now(): number {
        return nowFor(clock.#now);
      }
    }
    globalThis.Date = SimDate as DateConstructor;
    // Sub-millisecond readings too (the ledger's microsecond timestamps add them): virtual ms since the start.
    const origin = this.#now;
    Object.defineProperty(performance, 'now', { value: () => clock.#now - origin, configurable: true, writable: true });
  }

  uninstall(): void {
    Object.assign(globalThis, real);
    delete (performance as { now?: unknown }).now;
  }

  /**
   * Resolves once no immediate is pending (after the microtasks of the last one ran), no file system request is in
   * flight and no held work is left. A node's disk work (a scheduled backup's files, a snapshot) completes at a real
   * time on libuv's thread pool: were a timer let fire meanwhile, where that work lands in virtual time would follow
   * the machine's load, and so would the run. Work that awaits the disk across several steps (a node restarting) is
   * held for the same reason.
   */
  async idle(): Promise<void> {
    for (;;) {
      do await new Promise<void>((resolve) => real.setImmediate(resolve));
      while (this.#immediates > 0);
      if (diskPending()) {
        await new Promise<void>((resolve) => real.setTimeout(resolve, 1));
        continue;
      }
      if (!this.#held.size) return;
      await Promise.allSettled([...this.#held]);
    }
  }

  /** Keeps time still until `work` settles (see idle). */
  hold(work: Promise<unknown>): void {
    const held = work.finally(() => this.#held.delete(held));
    held.catch(() => {});
    this.#held.add(held);
  }

  /** The time of the next timer, or null when none is set. */
  nextAt(): number | null {
    return this.#peek()?.at ?? null;
  }

  /** Moves to the next timer's time and fires every timer due then (in the order queued), each followed by idle(). */
  async step(): Promise<boolean> {
    const at = this.nextAt();
    if (at === null) return false;
    this.#now = Math.max(this.#now, at);
    for (;;) {
      const entry = this.#peekEntry();
      if (!entry || entry.at > this.#now) return true;
      this.#pop();
      const due = entry.timer;
      if (due.every !== null) {
        due.at += due.every;
        this.#push(due);
      } else this.#timers.delete(due.id);
      if (due.owner && !due.owner.alive) {
        this.#timers.delete(due.id);
        continue;
      }
      this.fired++;
      if (due.owner) owner.run(due.owner, () => due.fn(...due.args));
      else due.fn(...due.args);
      await this.idle();
    }
  }

  #peek(): Timer | undefined {
    return this.#peekEntry()?.timer;
  }

  /** The earliest live entry: entries of cleared timers, or of an interval's earlier time, are dropped on the way. */
  #peekEntry(): Entry | undefined {
    for (;;) {
      const top = this.#queue[0];
      if (!top || (this.#timers.get(top.timer.id) === top.timer && top.timer.at === top.at)) return top;
      this.#pop();
    }
  }

  #push(timer: Timer): void {
    const q = this.#queue;
    q.push({ at: timer.at, order: ++this.#order, timer });
    for (let i = q.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(q[i]!, q[parent]!)) break;
      [q[i], q[parent]] = [q[parent]!, q[i]!];
      i = parent;
    }
  }

  #pop(): void {
    const q = this.#queue;
    const last = q.pop()!;
    if (!q.length) return;
    q[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < q.length && before(q[l]!, q[m]!)) m = l;
      if (r < q.length && before(q[r]!, q[m]!)) m = r;
      if (m === i) return;
      [q[i], q[m]] = [q[m]!, q[i]!];
      i = m;
    }
  }

  /** Runs timers until `until` (virtual ms) or no timer is left before it. */
  async runUntil(until: number): Promise<void> {
    await this.idle();
    for (;;) {
      const at = this.nextAt();
      if (at === null || at > until) break;
      await this.step();
    }
    this.#now = Math.max(this.#now, until);
  }

  /** Waits, in virtual time, until `done()` holds (checked after each instant); false when `limit` ms passed first. */
  async until(done: () => boolean, limit: number): Promise<boolean> {
    const end = this.#now + limit;
    await this.idle();
    while (!done()) {
      const at = this.nextAt();
      if (at === null || at > end) return false;
      await this.step();
    }
    return true;
  }

  /** Waits for a promise, firing timers while it is pending (a REST call whose handler awaits a timer). */
  async settle<T>(promise: Promise<T>, limit = 600_000): Promise<T> {
    let settled = false;
    const tracked = promise.finally(() => {
      settled = true;
    });
    tracked.catch(() => {});
    if (!(await this.until(() => settled, limit))) throw new Error(`still pending after ${limit} virtual ms`);
    return tracked;
  }
}

/** A place in the queue: timers due at the same time fire in the order they were queued. */
interface Entry {
  at: number;
  order: number;
  timer: Timer;
}

const before = (a: Entry, b: Entry): boolean => a.at < b.at || (a.at === b.at && a.order < b.order);
