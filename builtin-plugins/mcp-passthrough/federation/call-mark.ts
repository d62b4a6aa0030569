/**
 * The mark a reselling node puts in a resold call's `_meta`: a random UUID naming the call on both nodes. The seller
 * records it as the usage row's `call_id`, so a buyer whose call's answer never came (cancelled, connection lost) can
 * find what the seller charged for exactly that call, and pay it once.
 */
export const CALL_MARK = 'mcp-passthrough/resale-call';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The mark of a call's `_meta`, when it carries a well-formed one. */
export function callMarkOf(meta: Record<string, unknown> | undefined): string | null {
  const m = meta?.[CALL_MARK];
  return typeof m === 'string' && UUID.test(m) ? m : null;
}
