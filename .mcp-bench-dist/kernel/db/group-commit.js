/**
 * Batches small writes that must reach the disk but need not block the request that made them: everything
 * queued during one turn of the event loop is written in a single transaction on the next turn. A commit per
 * request was the largest cost of the hot paths that use it (spent nonces, the peer replay cache).
 */
export class GroupCommit {
    db;
    #queue = [];
    #scheduled = false;
    constructor(db) {
        this.db = db;
    }
    add(write) {
        this.#queue.push(write);
        if (!this.#scheduled) {
            this.#scheduled = true;
            setImmediate(() => this.flush());
        }
    }
    /** Writes what is queued now (shutdown calls it before closing the database). */
    flush() {
        this.#scheduled = false;
        // After shutdown closed the database there is nothing left to protect: the node no longer answers.
        if (this.#queue.length === 0 || !this.db.open)
            return;
        const batch = this.#queue;
        this.#queue = [];
        this.db.transaction(() => {
            for (const write of batch)
                write();
        })();
    }
}
//# sourceMappingURL=group-commit.js.map