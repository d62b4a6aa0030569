/**
 * The system plugin's one table: small JSON documents that must survive a restart (the update-check cache,
 * the daily debug-report submission count). Read at setup and on writes only, never per status request.
 */
export class SystemStore {
    #get;
    #set;
    constructor(db) {
        db.migrate([
            {
                version: 1,
                up: `CREATE TABLE system_state (
               key TEXT PRIMARY KEY,
               value TEXT NOT NULL,
               updated_at TEXT NOT NULL
             )`,
            },
        ]);
        this.#get = db.handle.prepare('SELECT value FROM system_state WHERE key = ?');
        this.#set = db.handle.prepare(`INSERT INTO system_state (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    }
    read(key) {
        const row = this.#get.get(key);
        if (!row)
            return null;
        try {
            return JSON.parse(row.value);
        }
        catch {
            return null;
        }
    }
    write(key, value) {
        this.#set.run(key, JSON.stringify(value), new Date().toISOString());
    }
}
//# sourceMappingURL=store.js.map