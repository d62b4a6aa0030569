/** Core scopes of Document 1. `<category>:*` grants both verbs of a category; `admin` grants everything. */
export const CORE_SCOPES = [
  'wallet:read', 'wallet:send', 'wallet:*',
  'contacts:read', 'contacts:write', 'contacts:*',
  'system:read', 'system:write', 'system:*',
  'backup:read', 'backup:write', 'backup:*',
  'payback:read', 'payback:write', 'payback:*',
  'admin',
] as const;

/** Whether a key holding `held` may use a route needing any of `required`. */
export function grants(held: readonly string[], required: string | readonly string[]): boolean {
  if (held.includes('admin')) return true;
  const needs = typeof required === 'string' ? [required] : required;
  return needs.some((scope) => {
    if (held.includes(scope)) return true;
    const colon = scope.indexOf(':');
    return colon > 0 && held.includes(`${scope.slice(0, colon)}:*`);
  });
}
