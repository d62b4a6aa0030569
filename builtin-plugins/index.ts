import type { BuiltinPlugin } from '../kernel/plugins/host.js';
import type { PluginManifest } from '../sdk/index.js';
import apiKeys from './api-keys/index.js';
import apiKeysManifest from './api-keys/plugin.json' with { type: 'json' };
import pluginsAdmin from './plugins-admin/index.js';
import pluginsAdminManifest from './plugins-admin/plugin.json' with { type: 'json' };
import system from './system/index.js';
import systemManifest from './system/plugin.json' with { type: 'json' };

const plugin = (manifest: PluginManifest, definition: BuiltinPlugin['definition']): BuiltinPlugin => ({ manifest, definition });

/** Every builtin plugin the node ships, in no particular order: the host orders them by their services. */
export const builtinPlugins: readonly BuiltinPlugin[] = [
  plugin(systemManifest, system),
  plugin(apiKeysManifest, apiKeys),
  plugin(pluginsAdminManifest, pluginsAdmin),
];
