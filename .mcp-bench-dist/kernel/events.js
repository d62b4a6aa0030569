/**
 * In-process publish/subscribe. Handlers run on a later microtask so a publisher inside a transaction
 * never runs subscriber code mid-transaction, and one failing subscriber cannot break the others.
 */
export class EventBus {
    log;
    #handlers = new Map();
    constructor(log) {
        this.log = log;
    }
    publish(name, payload) {
        const handlers = this.#handlers.get(name);
        if (!handlers)
            return;
        for (const handler of handlers) {
            queueMicrotask(() => {
                Promise.resolve()
                    .then(() => handler(payload))
                    .catch((err) => this.log.error(`event handler for ${name} failed`, { error: String(err) }));
            });
        }
    }
    subscribe(name, handler) {
        let set = this.#handlers.get(name);
        if (!set)
            this.#handlers.set(name, (set = new Set()));
        set.add(handler);
        return () => set.delete(handler);
    }
}
//# sourceMappingURL=events.js.map