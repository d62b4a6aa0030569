/**
 * The entry of a fixed table under a key that a client, a peer or an upstream chose. Own entries only: a key such as
 * `constructor`, `toString` or `__proto__` finds nothing, rather than a member every object inherits (which passed
 * for an asset, a setting's parser or an error code, and failed later with a 500).
 */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
