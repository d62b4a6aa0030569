export interface PluginManifest {
  /** `^[a-z0-9][a-z0-9-_]{0,63}$` */
  name: string;
  version: string;
  description?: string;
  author?: string;
  license?: string;
  homepage?: string;
  /** Services this plugin needs; the host starts providers first and refuses to start it without them. */
  requires?: string[];
  /** Services this plugin provides through `ctx.services.provide`. */
  provides?: string[];
  /** Scopes it registers beyond the core ones (e.g. `myplugin:read`). */
  scopes?: string[];
  /** Actions it serves publicly under `/p/<name>/<action>`. */
  public_routes?: string[];
  /** Rail ids it adds to the payback registry. */
  payback_types?: string[];
  /** Builtin plugins the node cannot run without (system, api-keys, plugins admin): never disabled. */
  essential?: boolean;
  /** Whether a builtin plugin starts enabled on a fresh node. Third-party plugins are always disabled first. */
  enabled_by_default?: boolean;
  has_changelog?: boolean;
}
