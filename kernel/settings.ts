import { existsSync, readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import type { Logger, SettingDefinition, SettingsChangeListener, SettingsMechanism } from '../sdk/index.js';
import { SETTINGS_FILE } from './data-files.js';
import { ApiError } from './errors.js';
import { writeFileAtomic } from './fs-atomic.js';

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);

export const toSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

function rangeMessage(def: SettingDefinition): string {
  if (def.min !== undefined && def.max !== undefined) return `must be between ${def.min} and ${def.max}`;
  if (def.min !== undefined) return `must be at least ${def.min}`;
  return `must be at most ${def.max}`;
}

function outOfRange(def: SettingDefinition, n: Decimal.Value): boolean {
  const d = new Decimal(n);
  return (def.min !== undefined && d.lt(def.min)) || (def.max !== undefined && d.gt(def.max));
}

/** Turns a REST, CLI or file value into the setting's type; strings are accepted for every type. */
export function coerceSetting(def: SettingDefinition, raw: unknown): Coerced {
  const text = typeof raw === 'string' ? raw.trim() : raw;
  switch (def.type) {
    case 'boolean': {
      if (typeof text === 'boolean') return { ok: true, value: text };
      const t = String(text).toLowerCase();
      if (TRUE.has(t)) return { ok: true, value: true };
      if (FALSE.has(t)) return { ok: true, value: false };
      return { ok: false, message: 'must be true or false' };
    }
    case 'integer':
    case 'number': {
      const isNum = typeof text === 'number' || (typeof text === 'string' && /^-?\d+(\.\d+)?$/.test(text));
      const n = isNum ? Number(text) : NaN;
      if (!Number.isFinite(n)) return { ok: false, message: `must be a${def.type === 'integer' ? 'n integer' : ' number'}` };
      if (def.type === 'integer' && !Number.isInteger(n)) return { ok: false, message: 'must be an integer' };
      if (outOfRange(def, n)) return { ok: false, message: rangeMessage(def) };
      return { ok: true, value: n };
    }
    case 'decimal': {
      const s = typeof text === 'number' ? new Decimal(text).toFixed() : String(text ?? '');
      if (!/^\d+(\.\d{1,8})?$/.test(s)) return { ok: false, message: 'must be a non-negative decimal with at most 8 decimals' };
      if (outOfRange(def, s)) return { ok: false, message: rangeMessage(def) };
      return { ok: true, value: new Decimal(s).toFixed() };
    }
    case 'string':
      if (typeof text !== 'string' && typeof text !== 'number') return { ok: false, message: 'must be a string' };
      return { ok: true, value: String(text) };
    case 'enum': {
      const match = def.options?.find((o) => o.toLowerCase() === String(text).toLowerCase());
      return match === undefined ? { ok: false, message: `must be one of ${def.options?.join(', ')}` } : { ok: true, value: match };
    }
    case 'list': {
      const items = Array.isArray(text) ? text : typeof text === 'string' ? text.split(',') : null;
      if (!items || items.some((i) => typeof i !== 'string')) return { ok: false, message: 'must be a comma-separated list' };
      return { ok: true, value: (items as string[]).map((i) => i.trim()).filter(Boolean) };
    }
  }
}

/**
 * The settings registry. The kernel and each plugin declare their settings (type, default, range); values
 * live in `settings.json`, written atomically. An update validates every change before applying any, so a
 * bad value changes nothing. Values saved by a plugin that is not loaded are kept in the file untouched.
 */
export class SettingsRegistry implements SettingsMechanism {
  #defs = new Map<string, SettingDefinition>();
  #bySnake = new Map<string, string>();
  #saved: Record<string, unknown>;
  #values = new Map<string, unknown>();
  #listeners = new Map<string, Set<SettingsChangeListener>>();

  constructor(
    private readonly file: string,
    private readonly log: Logger,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {
    this.#saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  }

  declare(definitions: readonly SettingDefinition[]): void {
    for (const def of definitions) {
      if (this.#defs.has(def.key)) throw new Error(`setting ${def.key} is declared twice`);
      this.#defs.set(def.key, def);
      this.#bySnake.set(toSnake(def.key), def.key);
      this.#values.set(def.key, this.#effective(def));
    }
  }

  /** Drops the declarations of a plugin that stopped, so a reload can declare them again. */
  undeclare(keys: readonly string[]): void {
    for (const key of keys) {
      this.#defs.delete(key);
      this.#bySnake.delete(toSnake(key));
      this.#values.delete(key);
    }
  }

  has(key: string): boolean {
    return this.#defs.has(key);
  }

  get<T = unknown>(key: string): T {
    if (!this.#values.has(key)) throw new Error(`setting ${key} is not declared`);
    return this.#values.get(key) as T;
  }

  definitions(): SettingDefinition[] {
    return [...this.#defs.values()];
  }

  values(): Record<string, unknown> {
    return Object.fromEntries(this.#values);
  }

  /** Names whose value comes from the environment and so cannot be changed by an update. */
  overridden(): string[] {
    return this.definitions().filter((d) => d.env && this.env[d.env] !== undefined).map((d) => d.key);
  }

  toSnake(key: string): string {
    return toSnake(key);
  }

  fromSnake(name: string): string | null {
    return this.#bySnake.get(name) ?? (this.#defs.has(name) ? name : null);
  }

  update(changes: Record<string, unknown>): Record<string, unknown> {
    const entries = Object.entries(changes);
    if (entries.length === 0) throw new ApiError('no_fields', 400, 'No settings to update');
    const unknown = entries.map(([k]) => k).filter((k) => !this.#defs.has(k));
    if (unknown.length) {
      throw new ApiError('unknown_setting', 400, `Unknown setting: ${unknown.map(toSnake).join(', ')}`, {
        settings: unknown.map(toSnake),
      });
    }
    const accepted: Record<string, unknown> = {};
    const errors: { setting: string; message: string }[] = [];
    for (const [key, raw] of entries) {
      const result = this.#check(this.#defs.get(key)!, raw);
      if (result.ok) accepted[key] = result.value;
      else errors.push({ setting: toSnake(key), message: result.message });
    }
    if (!errors.length) errors.push(...this.#crossCheck(accepted));
    if (errors.length) {
      throw new ApiError('validation_error', 400, errors.map((e) => `${e.setting}: ${e.message}`).join('; '), { errors });
    }
    const next = { ...this.#saved, ...accepted };
    writeFileAtomic(this.file, JSON.stringify(next, null, 2) + '\n');
    this.#saved = next;
    for (const key of Object.keys(accepted)) this.#refresh(key);
    return accepted;
  }

  reset(): void {
    const declared = new Set(this.#defs.keys());
    const kept = Object.fromEntries(Object.entries(this.#saved).filter(([k]) => !declared.has(k)));
    writeFileAtomic(this.file, JSON.stringify(kept, null, 2) + '\n');
    this.#saved = kept;
    for (const key of declared) this.#refresh(key);
  }

  onChange(key: string, listener: SettingsChangeListener): () => void {
    let set = this.#listeners.get(key);
    if (!set) this.#listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Rules across settings, judged on the values this update would leave in effect. */
  #crossCheck(accepted: Record<string, unknown>): { setting: string; message: string }[] {
    const fromEnv = new Set(this.overridden());
    const valueOf = (key: string): unknown =>
      Object.hasOwn(accepted, key) && !fromEnv.has(key) ? accepted[key] : this.#values.get(key);
    const errors: { setting: string; message: string }[] = [];
    for (const def of this.#defs.values()) {
      const problem = def.crossCheck?.(valueOf(def.key), valueOf) ?? null;
      if (problem) errors.push({ setting: toSnake(def.key), message: problem });
    }
    return errors;
  }

  #check(def: SettingDefinition, raw: unknown): Coerced {
    const coerced = coerceSetting(def, raw);
    if (!coerced.ok) return coerced;
    const problem = def.validate?.(coerced.value) ?? null;
    if (problem) return { ok: false, message: problem };
    return { ok: true, value: def.normalize ? def.normalize(coerced.value) : coerced.value };
  }

  #effective(def: SettingDefinition): unknown {
    const fromEnv = def.env ? this.env[def.env] : undefined;
    for (const [source, raw] of [
      [`environment ${def.env}`, fromEnv],
      [SETTINGS_FILE, this.#saved[def.key]],
    ] as const) {
      if (raw === undefined) continue;
      const result = this.#check(def, raw);
      if (result.ok) return result.value;
      this.log.warn(`ignoring invalid ${def.key} from ${source}: ${result.message}`);
    }
    return def.default;
  }

  #refresh(key: string): void {
    const previous = this.#values.get(key);
    const value = this.#effective(this.#defs.get(key)!);
    this.#values.set(key, value);
    if (JSON.stringify(previous) === JSON.stringify(value)) return;
    for (const listener of [...(this.#listeners.get(key) ?? []), ...(this.#listeners.get('*') ?? [])]) {
      try {
        listener(key, value, previous);
      } catch (err) {
        this.log.error(`settings listener for ${key} failed`, { error: String(err) });
      }
    }
  }
}
