/**
 * The body of an export: rows pulled from a service's iterator only as fast as the client reads them (a Readable
 * that the HTTP layer pipes to the socket), so memory stays flat whatever the row count. A failure after the first
 * byte can no longer change the status, so it ends the body with the sentinel line of Document 1 instead.
 */
import { Readable } from 'node:stream';
/** Bytes (roughly: UTF-16 units) gathered before a chunk is handed on: a few hundred rows per turn of the loop. */
const CHUNK = 64 * 1024;
export class ExportStream extends Readable {
    rows;
    encoder;
    failed;
    #first;
    #started = false;
    #finished = false;
    #count = 0;
    /**
     * `first` is the iterator's first result, taken before the response was committed (so that a source that fails at
     * once still gets an error status). `failed` logs a failure and returns the sentinel's message.
     */
    constructor(first, rows, encoder, failed) {
        super({ highWaterMark: CHUNK });
        this.rows = rows;
        this.encoder = encoder;
        this.failed = failed;
        this.#first = first;
    }
    /** Rows written so far. */
    get count() {
        return this.#count;
    }
    _read() {
        if (this.#finished)
            return;
        let chunk = '';
        if (!this.#started) {
            this.#started = true;
            chunk = this.encoder.prelude;
        }
        try {
            while (chunk.length < CHUNK) {
                const next = this.#first ?? this.rows.next();
                this.#first = null;
                if (next.done) {
                    this.#finished = true;
                    break;
                }
                chunk += this.encoder.row(next.value);
                this.#count++;
            }
        }
        catch (err) {
            chunk += this.encoder.failure(this.failed(err, this.#count));
            this.#finished = true;
        }
        if (chunk)
            this.push(chunk);
        if (this.#finished)
            this.push(null);
    }
    _destroy(err, callback) {
        // The client went away: close the source (a generator runs its cleanup) rather than leave it suspended.
        if (!this.#finished) {
            this.#finished = true;
            try {
                this.rows.return?.();
            }
            catch {
                // nothing left to release
            }
        }
        callback(err);
    }
}
//# sourceMappingURL=stream.js.map