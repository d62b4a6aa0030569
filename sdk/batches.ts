/**
 * Long maintenance work (archival) done a batch per database transaction, the node serving requests between batches.
 */

/** Runs `batch` (one transaction; it returns how many rows it handled) until it handles fewer than `size`. */
export async function inBatches(batch: () => number, size: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = batch();
    total += n;
    if (n < size) return total;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
