import { appendFileSync } from 'node:fs';
const RANK = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40, CRITICAL: 50 };
/**
 * One log for the node: a bounded in-memory ring (for debug reports), stderr, and an append-only file.
 * Callers never pass secrets; fields are serialised as given.
 */
export class LogSink {
    file;
    echo;
    #ring = [];
    level = 'INFO';
    maxEntries = 1000;
    constructor(file, echo) {
        this.file = file;
        this.echo = echo;
    }
    write(level, source, message, fields) {
        if (RANK[level] < RANK[this.level])
            return;
        const entry = { at: new Date().toISOString(), level, source, message, ...(fields ? { fields } : {}) };
        this.#ring.push(entry);
        if (this.#ring.length > this.maxEntries)
            this.#ring.splice(0, this.#ring.length - this.maxEntries);
        const line = `${entry.at} ${level} [${source}] ${message}${fields ? ' ' + JSON.stringify(fields) : ''}\n`;
        if (this.echo)
            process.stderr.write(line);
        if (this.file) {
            try {
                appendFileSync(this.file, line, { mode: 0o600 });
            }
            catch {
                // the ring still holds the entry; a full disk must not take the node down
            }
        }
    }
    recent(limit = 50) {
        return this.#ring.slice(-limit);
    }
    logger(source) {
        return {
            debug: (m, f) => this.write('DEBUG', source, m, f),
            info: (m, f) => this.write('INFO', source, m, f),
            warn: (m, f) => this.write('WARNING', source, m, f),
            error: (m, f) => this.write('ERROR', source, m, f),
        };
    }
}
//# sourceMappingURL=log.js.map