import type { EventHandler, EventsApi, Logger } from '../sdk/index.js';

/**
 * In-process publish/subscribe. Handlers run on a later microtask so a publisher inside a transaction
 * never runs subscriber code mid-transaction, and one failing subscriber cannot break the others.
 */
export class EventBus implements EventsApi {
  #handlers = new Map<string, Set<EventHandler>>();

  constructor(private readonly log: Logger) {}

  publish(name: string, payload?: unknown): void {
    const handlers = this.#handlers.get(name);
    if (!handlers) return;
    for (const handler of handlers) {
      queueMicrotask(() => {
        Promise.resolve()
          .then(() => handler(payload))
          .catch((err: unknown) => this.log.error(`event handler for ${name} failed`, { error: String(err) }));
      });
    }
  }

  subscribe<P = unknown>(name: string, handler: EventHandler<P>): () => void {
    let set = this.#handlers.get(name);
    if (!set) this.#handlers.set(name, (set = new Set()));
    set.add(handler as EventHandler);
    return () => set.delete(handler as EventHandler);
  }
}
