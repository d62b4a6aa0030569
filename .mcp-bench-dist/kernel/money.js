/**
 * Exact money lives in the SDK (`sdk/money.ts`), the one door of plugins; this module keeps the older import path
 * of the builtin plugins working until they import it from there.
 */
export * from '../sdk/money.js';
//# sourceMappingURL=money.js.map