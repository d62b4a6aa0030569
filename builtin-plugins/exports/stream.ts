/**
 * The body of an export: rows pulled from a service's iterator only as fast as the client reads them (a Readable
 * that the HTTP layer pipes to the socket), so memory stays flat whatever the row count. A failure after the first
 * byte can no longer change the status, so it ends the body with the sentinel line of Document 1 instead.
 */
import { Readable } from 'node:stream';
import type { Encoder } from './encode.js';

/** Characters gathered before a chunk is handed on: a few hundred rows per turn of the loop. */
const CHUNK = 64 * 1024;

export class ExportStream<R> extends Readable {
  #first: IteratorResult<R> | null;
  #started = false;
  #finished = false;
  #count = 0;

  /**
   * `first` is the iterator's first result, taken before the response was committed (so that a source that fails at
   * once still gets an error status). `failed` logs a failure and returns the sentinel's message.
   */
  constructor(
    first: IteratorResult<R>,
    private readonly rows: Iterator<R>,
    private readonly encoder: Encoder<R>,
    private readonly failed: (err: unknown, rowsWritten: number) => string,
  ) {
    super({ highWaterMark: CHUNK, encoding: 'utf8' });
    this.#first = first;
  }

  override _read(): void {
    if (this.#finished) return;
    // Lines are joined into one flat string per chunk, and the stream keeps strings (encoding utf8): the socket
    // encodes them straight into its write, so no Buffer per chunk is left for the collector to sweep.
    const lines: string[] = [];
    let size = 0;
    if (!this.#started) {
      this.#started = true;
      lines.push(this.encoder.prelude);
    }
    try {
      while (size < CHUNK) {
        const next = this.#first ?? this.rows.next();
        this.#first = null;
        if (next.done) {
          this.#finished = true;
          break;
        }
        const line = this.encoder.row(next.value);
        lines.push(line);
        size += line.length;
        this.#count++;
      }
    } catch (err) {
      lines.push(this.encoder.failure(this.failed(err, this.#count)));
      this.#finished = true;
    }
    if (lines.length > 0) this.push(lines.join(''), 'utf8');
    if (this.#finished) this.push(null);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    // The client went away: close the source (a generator runs its cleanup) rather than leave it suspended.
    if (!this.#finished) {
      this.#finished = true;
      try {
        this.rows.return?.();
      } catch {
        // nothing left to release
      }
    }
    callback(err);
  }
}
