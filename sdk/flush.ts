/**
 * Flushing a file that is being written, off the event loop, one flush at a time. A large file synced once at the
 * end holds the file system's journal long enough that every other write of the process waits behind it; flushed as
 * it grows, the final sync finds little left.
 */
import type { FileHandle } from 'node:fs/promises';

export class BackgroundFlush {
  #running: Promise<void> | null = null;

  constructor(private readonly file: FileHandle) {}

  /** Whether a flush is under way. */
  get busy(): boolean {
    return this.#running !== null;
  }

  /**
   * Starts a flush, or joins the one under way. It never rejects: a failed flush only leaves more to the final sync,
   * which the writer awaits and which reports what is wrong.
   */
  flush(): Promise<void> {
    this.#running ??= this.file
      .datasync()
      .catch(() => undefined)
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  /** Resolves once no flush is under way. */
  async settled(): Promise<void> {
    await this.#running;
  }
}
