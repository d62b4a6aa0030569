/**
 * Origins as a browser sends them in the `Origin` header: `scheme://host[:port]`, nothing after the authority.
 * `apiCorsAllowedOrigins` compares them byte for byte, so a value that is no origin (a path, a bare host, text)
 * could never match and only hides a typing mistake: the setting refuses it instead.
 */
const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
const ORIGIN = new RegExp(`^[a-z][a-z0-9+.-]*://(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])(?::(\\d{1,5}))?/?$`, 'i');

const items = (list: string): string[] => list.split(',').map((s) => s.trim()).filter(Boolean);

/** Why a comma-separated list of origins (or `*`) is not one, or null. */
export function originListProblem(list: string): string | null {
  const bad = items(list).filter((item) => {
    if (item === '*') return false;
    const m = ORIGIN.exec(item);
    return !m || (m[1] !== undefined && Number(m[1]) > 65_535);
  });
  return bad.length ? `not an origin (scheme://host[:port], no path; or *): ${bad.map((b) => JSON.stringify(b)).join(', ')}` : null;
}

/** The list as browsers write origins: lower case, no trailing slash, comma-separated without spaces. */
export function normalizeOriginList(list: string): string {
  return items(list).map((item) => item.toLowerCase().replace(/\/$/, '')).join(',');
}
