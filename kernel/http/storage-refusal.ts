import { ApiError } from '../errors.js';
import type { StorageHealth } from '../db/storage-health.js';

/**
 * The answer to a request whose write the disk refused (docs/decisions.md, "A full disk"): 507 `insufficient_storage`,
 * which tells the client that its request changed nothing and may be sent again once the node recovers. Null for any
 * other failure.
 */
export function storageRefusal(storage: StorageHealth, err: unknown): ApiError | null {
  const fault = storage.failed(err);
  if (!fault) return null;
  return new ApiError('insufficient_storage', 507, `The node cannot write to its disk (${fault}); what it was writing was rolled back. Try again once it recovers.`, {
    reason: fault,
  });
}
