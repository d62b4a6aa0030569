import type { Db } from './open.js';

/**
 * The one transaction helper. Work registered with `afterCommit` while `fn` runs (sending the outbox,
 * publishing events) runs only once the transaction has committed, and never if it rolled back.
 */
export class TxRunner {
  #pending: (() => void)[] | null = null;

  constructor(private readonly db: Db) {}

  run<T>(fn: () => T): T {
    if (this.#pending) return fn(); // nested: joins the outer transaction
    const pending: (() => void)[] = [];
    this.#pending = pending;
    let result: T;
    try {
      result = this.db.transaction(fn).immediate();
    } finally {
      this.#pending = null;
    }
    for (const job of pending) queueMicrotask(job);
    return result;
  }

  afterCommit(fn: () => void): void {
    if (this.#pending) this.#pending.push(fn);
    else queueMicrotask(fn);
  }
}
