/**
 * Migrations are recorded per owner (the kernel, each plugin), so a plugin's schema evolves on its own and
 * a fresh install and an upgrade end in the same state. Each migration runs in its own transaction.
 */
export function migrate(db, owner, migrations) {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    owner TEXT NOT NULL, version INTEGER NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (owner, version)
  ) WITHOUT ROWID`);
    const applied = new Set(db.prepare('SELECT version FROM schema_migrations WHERE owner = ?').all(owner).map((r) => r.version));
    const record = db.prepare('INSERT INTO schema_migrations (owner, version, applied_at) VALUES (?, ?, ?)');
    const ordered = [...migrations].sort((a, b) => a.version - b.version);
    for (const m of ordered) {
        if (applied.has(m.version))
            continue;
        db.transaction(() => {
            if (typeof m.up === 'string')
                db.exec(m.up);
            else
                m.up(db);
            record.run(owner, m.version, new Date().toISOString());
        }).immediate();
    }
}
//# sourceMappingURL=migrations.js.map