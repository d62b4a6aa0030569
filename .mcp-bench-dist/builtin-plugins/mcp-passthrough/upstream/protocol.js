/**
 * The contract between the plugin and an upstream's wire format. A preset (presets.ts) names a protocol, a default
 * endpoint and whether it needs a token; a protocol turns a call into an HTTP request and reads the answer back,
 * whole or as server-sent events. Other plugins add presets through the service (api.ts), the way rails fill the
 * payback registry.
 */
export const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
export const count = (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
//# sourceMappingURL=protocol.js.map