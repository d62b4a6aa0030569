/**
 * The one transaction helper. Work registered with `afterCommit` while `fn` runs (sending the outbox,
 * publishing events) runs only once the transaction has committed, and never if it rolled back.
 */
export class TxRunner {
    db;
    #pending = null;
    constructor(db) {
        this.db = db;
    }
    run(fn) {
        if (this.#pending)
            return fn(); // nested: joins the outer transaction
        const pending = [];
        this.#pending = pending;
        let result;
        try {
            result = this.db.transaction(fn).immediate();
        }
        finally {
            this.#pending = null;
        }
        for (const job of pending)
            queueMicrotask(job);
        return result;
    }
    afterCommit(fn) {
        if (this.#pending)
            this.#pending.push(fn);
        else
            queueMicrotask(fn);
    }
}
//# sourceMappingURL=tx.js.map