import type { BuiltinPlugin } from '../kernel/plugins/host.js';

/** Every builtin plugin the node ships, in no particular order: the host orders them by their services. */
export const builtinPlugins: readonly BuiltinPlugin[] = [];
