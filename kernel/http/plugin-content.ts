/**
 * What a plugin serves never runs with the operator's authority (ARCHITECTURE.md, rule 8). The GUI's session lives on
 * the node's origin, so a page a plugin answers there (a storefront, a paid-content page, or a hostile page) would
 * read the session's CSRF token and act as the operator. Every answer from a plugin's namespaces (`/p/<plugin>/...`,
 * `/api/v1/plugins/<plugin>/...`) therefore carries a `sandbox` content policy without `allow-same-origin`: the
 * browser runs the page in an opaque origin of its own, whose requests to the node are cross-site (the SameSite
 * session cookie stays home) and whose answers it cannot read. Scripts, forms and popups still work inside, so a
 * legitimate page keeps working. `nosniff` (set on every answer by the app) stops a JSON or text answer from being
 * taken as HTML.
 *
 * A plugin cannot lift this: the headers below are the kernel's alone, and a plugin's copy of them is dropped.
 */
export const PLUGIN_CONTENT_POLICY = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

/** Headers a plugin's answer may not set: they would lift the isolation, or plant cookies on the node's origin. */
const KERNEL_ONLY = new Set([
  'set-cookie',
  'content-security-policy',
  'content-security-policy-report-only',
  'x-content-type-options',
  'access-control-allow-credentials',
  'clear-site-data',
  'service-worker-allowed',
]);

/** A plugin answer's headers, in the order they are set: without the kernel's own, then the isolating policy. */
export function pluginHeaders(headers: Readonly<Record<string, string>>): [string, string][] {
  const kept = Object.entries(headers).filter(([k]) => !KERNEL_ONLY.has(k.toLowerCase()));
  kept.push(['Content-Security-Policy', PLUGIN_CONTENT_POLICY]);
  return kept;
}
