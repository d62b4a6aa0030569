export type SettingType = 'boolean' | 'integer' | 'number' | 'decimal' | 'string' | 'enum' | 'list';

export interface SettingDefinition {
  /** camelCase name as in Document 2 (`defaultFee`); the REST name is its snake_case form. */
  key: string;
  type: SettingType;
  default: unknown;
  category: string;
  description: string;
  min?: number;
  max?: number;
  /** Allowed values of an `enum` (matched case-insensitively, stored as listed). */
  options?: readonly string[];
  /** Extra rule after type and range checks; returns an error message or null. Receives the coerced value. */
  validate?: (value: unknown) => string | null;
  /** Canonical form stored after validation (upper-casing codes, trimming). */
  normalize?: (value: unknown) => unknown;
  /**
   * A rule that spans settings (a default that must be in a list). Checked on every update, for every
   * setting that has one, against the values the update would produce: `valueOf` answers with the pending
   * changes applied. Returns an error message or null; any message fails the whole update.
   */
  crossCheck?: (value: unknown, valueOf: (key: string) => unknown) => string | null;
  /** Environment variable that, when set, overrides the stored value (Document 2 names a few). */
  env?: string;
  /**
   * The setting decides who may reach or act on the node (proxies, CORS, rate limits, peer address trust): a browser
   * session changes it only after a fresh confirmation (`RouteDefinition.confirm`).
   */
  security?: boolean;
}

export type SettingsChangeListener = (key: string, value: unknown, previous: unknown) => void;

export interface SettingsApi {
  declare(definitions: readonly SettingDefinition[]): void;
  get<T = unknown>(key: string): T;
  onChange(key: string | '*', listener: SettingsChangeListener): () => void;
}
