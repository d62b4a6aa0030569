/**
 * The one scope the kernel itself knows: `admin` grants everything. Every other scope is registered by the
 * plugin that needs it (its manifest's `scopes`; the system plugin registers the categories of Document 1).
 * `<category>:*` grants both verbs of a category.
 */
export const ADMIN_SCOPE = 'admin';
/** Whether a key holding `held` may use a route needing any of `required`. */
export function grants(held, required) {
    if (held.includes(ADMIN_SCOPE))
        return true;
    const needs = typeof required === 'string' ? [required] : required;
    return needs.some((scope) => {
        if (held.includes(scope))
            return true;
        const colon = scope.indexOf(':');
        return colon > 0 && held.includes(`${scope.slice(0, colon)}:*`);
    });
}
//# sourceMappingURL=scopes.js.map