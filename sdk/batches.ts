/**
 * Long maintenance work (archival) done a batch per database transaction, the node serving requests between batches.
 */

/** What a batched run did: the rows handled and the transactions it took (logged, so the batch size shows). */
export interface BatchedRun {
  moved: number;
  batches: number;
}

/** Runs `batch` (one transaction; it returns how many rows it handled) until it handles fewer than `size`. */
export async function inBatches(batch: () => number, size: number): Promise<BatchedRun> {
  const run: BatchedRun = { moved: 0, batches: 0 };
  for (;;) {
    const n = batch();
    run.batches += 1;
    run.moved += n;
    if (n < size) return run;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
