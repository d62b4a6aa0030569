/**
 * Just enough semantic-version ordering for the update check: `1.2.10` > `1.2.9`, a release beats its own
 * pre-release (`0.2.0` > `0.2.0-alpha`), pre-release identifiers compare numerically when both are numbers.
 * A leading `v` (git tags) is ignored; build metadata (`+...`) does not take part.
 */
const SHAPE = /^v?(\d+(?:\.\d+){0,3})(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
export function parseVersion(text) {
    const m = SHAPE.exec(text.trim());
    if (!m)
        return null;
    return { core: m[1].split('.').map(Number), pre: m[2] ? m[2].split('.') : [] };
}
/** The version text without a leading `v`, or null when it is not a version. */
export function cleanVersion(text) {
    return parseVersion(text) ? text.trim().replace(/^v/, '') : null;
}
function comparePre(a, b) {
    if (!a.length || !b.length)
        return a.length ? -1 : b.length ? 1 : 0;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const x = a[i];
        const y = b[i];
        if (x === undefined)
            return -1;
        if (y === undefined)
            return 1;
        const nx = /^\d+$/.test(x) ? Number(x) : null;
        const ny = /^\d+$/.test(y) ? Number(y) : null;
        if (nx !== null && ny !== null) {
            if (nx !== ny)
                return nx < ny ? -1 : 1;
        }
        else if (nx !== null || ny !== null) {
            return nx !== null ? -1 : 1;
        }
        else if (x !== y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}
/** Negative when a < b, 0 when equal, positive when a > b; unparsable versions compare as equal. */
export function compareVersions(a, b) {
    const pa = parseVersion(a);
    const pb = parseVersion(b);
    if (!pa || !pb)
        return 0;
    for (let i = 0; i < Math.max(pa.core.length, pb.core.length); i++) {
        const d = (pa.core[i] ?? 0) - (pb.core[i] ?? 0);
        if (d !== 0)
            return d < 0 ? -1 : 1;
    }
    return comparePre(pa.pre, pb.pre);
}
//# sourceMappingURL=semver.js.map