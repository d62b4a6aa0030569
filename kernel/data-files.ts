/**
 * The files of a node's data directory, named once: the module that owns each one reads and writes it, the snapshot
 * mechanism copies those that are state, and boot recovery never overwrites any of them.
 */
export const DATABASE_FILE = 'node.db';
export const SETTINGS_FILE = 'settings.json';
/** Third-party plugins' switches, settings and limits. */
export const PLUGINS_STATE_FILE = 'plugins-state.json';
/** The keys third-party plugins may be signed with. */
export const TRUSTED_KEYS_FILE = 'trusted-plugin-keys';
export const IDENTITY_FILE = 'identity.enc';
export const MASTER_KEY_FILE = 'master.key';
/** node-cli's admin key on this machine. */
export const CLI_CREDENTIALS_FILE = 'cli.json';
