/** Helpers of the payback integration tests. */
import { expect } from 'vitest';
import { call } from '../support/api.js';
import type { TestNode } from '../support/node.js';

/**
 * Expects the payback validation envelope of Document 1 (convention 8), checked whole, and returns its
 * `[field, code]` pairs.
 */
export async function invalid(
  t: TestNode,
  method: string,
  path: string,
  body?: unknown,
  query?: Record<string, string>,
): Promise<[string, string][]> {
  const res = await call(t, method, path, body, query);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    success: false,
    error: 'validation_error',
    message: expect.any(String),
    data: { errors: expect.any(Array) },
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    request_id: expect.stringMatching(/^req_[0-9a-f]{16}$/),
  });
  for (const e of res.body.data.errors) expect(e).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
  return res.body.data.errors.map((e: { field: string; code: string }) => [e.field, e.code]);
}
