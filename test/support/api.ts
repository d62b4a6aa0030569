import type { TestNode } from './node.js';

/**
 * A response envelope as tests read it. `data` is whatever the route returns: tests assert its exact shape
 * with toMatchObject/toEqual, so it is deliberately untyped here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Envelope = { success: boolean; data: any; error?: any; message?: string; timestamp?: string; request_id?: string; status_code?: number };

export async function call(
  t: TestNode,
  method: string,
  path: string,
  body?: unknown,
  query?: Record<string, string | number>,
): Promise<{ status: number; body: Envelope }> {
  const res = await t.admin.request<Envelope>(method, path, { ...(body !== undefined ? { body } : {}), ...(query ? { query } : {}) });
  return { status: res.status, body: res.body };
}

/** The `data` of a successful call; throws with the whole answer otherwise. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function ok(t: TestNode, method: string, path: string, body?: unknown, query?: Record<string, string | number>): Promise<any> {
  const res = await call(t, method, path, body, query);
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Polls until `accept` holds (work between nodes is asynchronous); fails with the last value seen. */
export async function waitFor<T>(probe: () => Promise<T>, accept: (v: T) => boolean, what: string, timeoutMs = 8000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await probe();
  }
  return last;
}

export const hashOf = (t: TestNode): string => t.node.identity.pubkeyHash;
