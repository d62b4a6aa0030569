/**
 * The payback-rail contract: how a settlement rail (a bank transfer scheme, a crypto network, a fintech
 * app) is described and validated. Core rails and third-party plugins implement the same interface; the
 * payback-methods plugin holds the registry and refuses a plugin rail whose id shadows a core one.
 */
/** Declares a rail; an identity function that gives plugin authors type checking. */
export function defineRail(rail) {
    return rail;
}
export const PAYBACK_SERVICE = 'payback';
export const RAIL_ID_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
//# sourceMappingURL=payback-rail.js.map