/**
 * A request path in the one spelling the router matches: runs of slashes collapsed, and percent-encoded unreserved
 * characters decoded (RFC 3986 6.2.2: `%72` and `r` name the same resource). Any spelling of a route's path then
 * reaches that route and its gates (scope, `confirm`), rather than one that a gate keyed on a spelling would miss.
 * Encoded reserved characters (`%2F`) stay encoded: they are data inside a segment, not structure.
 */
const UNRESERVED_ESCAPE = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[Dd]|2[Ee]|5[Ff]|7[Ee])/g;

export function normalizePath(path: string): string {
  // Every request passes here: the common spelling, with nothing to normalise, costs two scans and no copy.
  if (!path.includes('//') && !path.includes('%')) return path;
  return path.replace(/\/{2,}/g, '/').replace(UNRESERVED_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
}
