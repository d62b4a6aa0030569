/**
 * The plugin's tables. Nothing else reads them; other plugins reach this one through api.ts.
 *
 *   mcp_config     operator settings of `configure.set` (name → canonical string); absent names take defaults
 *   mcp_providers  upstream providers; the token only as AES-256-GCM ciphertext (secrets.ts)
 *   mcp_models     model rows per provider, in the order the operator gave them; rates as canonical decimal text
 *   mcp_keys       customer keys: only the SHA-256 of the token; prepaid balance and credit debt as whole + frac.
 *                  AUTOINCREMENT: a key id is never reused, so an old top-up memo `mcp-topup:<id>` never funds a
 *                  newer key. `kind` is `operator` (key-create) or `bootstrap` (minted without an operator: the
 *                  federation's request-key), the only kind the 24-hour reaper removes.
 *   mcp_usage      one row per call that reached an upstream (or a seller, later): tokens, bytes, charge split
 *                  between prepaid balance and credit, the operator's cost in its own currency, the route taken
 *   mcp_topups     every received payment whose description was a top-up memo, credited or not; `txid` unique, so
 *                  a payment delivered twice is credited once
 *
 * Times are milliseconds since the epoch. The federation (learned offers, proof nonces, keys held at sellers) adds
 * its own tables beside these; a usage row's `route`/`hops`/`seller_hash` already describe a resold call.
 */
import type { Database, Statement } from 'better-sqlite3';
import { fromParts, ReadCache, toParts, type Migration, type Minor, type PluginDb } from '../../sdk/index.js';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE mcp_config (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE mcp_providers (
        id TEXT PRIMARY KEY,
        preset TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        label TEXT NOT NULL,
        token_enc TEXT,
        position INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE mcp_models (
        provider_id TEXT NOT NULL REFERENCES mcp_providers (id) ON DELETE CASCADE,
        model_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        label TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        pricing_mode TEXT NOT NULL CHECK (pricing_mode IN ('markup', 'manual')),
        markup_pct TEXT NOT NULL,
        cost_in_per_1m TEXT NOT NULL,
        cost_out_per_1m TEXT NOT NULL,
        cost_xfer_per_gb TEXT NOT NULL,
        cost_currency TEXT,
        manual_in_per_1m TEXT NOT NULL,
        manual_out_per_1m TEXT NOT NULL,
        manual_xfer_per_gb TEXT NOT NULL,
        max_output_tokens INTEGER,
        PRIMARY KEY (provider_id, model_id)
      );
      CREATE TABLE mcp_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        label TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        token_hint TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('operator', 'bootstrap')),
        contact_hash TEXT,
        funding TEXT NOT NULL CHECK (funding IN ('prepaid', 'credit')),
        registered_pubkey TEXT,
        currency TEXT NOT NULL,
        balance_whole INTEGER NOT NULL DEFAULT 0,
        balance_frac INTEGER NOT NULL DEFAULT 0,
        debt_whole INTEGER NOT NULL DEFAULT 0,
        debt_frac INTEGER NOT NULL DEFAULT 0,
        allowed_origins TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        last_used_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX mcp_keys_contact ON mcp_keys (contact_hash) WHERE contact_hash IS NOT NULL;
      CREATE TABLE mcp_usage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'cancelled', 'error')),
        model TEXT NOT NULL,
        provider_id TEXT,
        route TEXT NOT NULL,
        hops INTEGER NOT NULL DEFAULT 0,
        seller_hash TEXT,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        transfer_bytes INTEGER NOT NULL,
        estimated INTEGER NOT NULL,
        charge_whole INTEGER NOT NULL,
        charge_frac INTEGER NOT NULL,
        from_balance_whole INTEGER NOT NULL,
        from_balance_frac INTEGER NOT NULL,
        from_credit_whole INTEGER NOT NULL,
        from_credit_frac INTEGER NOT NULL,
        currency TEXT NOT NULL,
        cost_whole INTEGER NOT NULL,
        cost_frac INTEGER NOT NULL,
        cost_currency TEXT,
        error TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER NOT NULL
      );
      CREATE INDEX mcp_usage_key ON mcp_usage (key_id, id);
      CREATE TABLE mcp_topups (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        txid TEXT NOT NULL UNIQUE,
        key_id INTEGER,
        contact_hash TEXT NOT NULL,
        amount_whole INTEGER NOT NULL,
        amount_frac INTEGER NOT NULL,
        currency TEXT NOT NULL,
        to_debt_whole INTEGER NOT NULL,
        to_debt_frac INTEGER NOT NULL,
        to_balance_whole INTEGER NOT NULL,
        to_balance_frac INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('credited', 'unmatched')),
        reason TEXT,
        at INTEGER NOT NULL
      );
      CREATE INDEX mcp_topups_key ON mcp_topups (key_id, id);
    `,
  },
  {
    // Operator limits and budgets per key (limits.ts); null: the operator's default. After the federation's 2 to 4.
    version: 5,
    up: `
      ALTER TABLE mcp_keys ADD COLUMN requests_per_minute INTEGER;
      ALTER TABLE mcp_keys ADD COLUMN tokens_per_minute INTEGER;
      ALTER TABLE mcp_keys ADD COLUMN parallel_calls INTEGER;
      ALTER TABLE mcp_keys ADD COLUMN sessions INTEGER;
      ALTER TABLE mcp_keys ADD COLUMN budget_whole INTEGER;
      ALTER TABLE mcp_keys ADD COLUMN budget_frac INTEGER;
      ALTER TABLE mcp_keys ADD COLUMN budget_period TEXT CHECK (budget_period IN ('day', 'week', 'month'));
      ALTER TABLE mcp_keys ADD COLUMN allowed_models TEXT;
      CREATE INDEX mcp_usage_key_time ON mcp_usage (key_id, finished_at);
    `,
  },
];

// ---------------------------------------------------------------------------------------------------------
// Rows

export interface ProviderRow {
  id: string;
  preset: string;
  endpoint: string;
  label: string;
  tokenEnc: string | null;
  position: number;
  createdAt: number;
  updatedAt: number;
}

export type PricingMode = 'markup' | 'manual';

export interface ModelRow {
  providerId: string;
  id: string;
  label: string;
  enabled: boolean;
  pricingMode: PricingMode;
  markupPct: string;
  costInPer1m: string;
  costOutPer1m: string;
  costXferPerGb: string;
  costCurrency: string | null;
  manualInPer1m: string;
  manualOutPer1m: string;
  manualXferPerGb: string;
  /** The model's own output allowance; null: the operator's `max_output_tokens`. */
  maxOutputTokens: number | null;
}

export type KeyKind = 'operator' | 'bootstrap';
export type Funding = 'prepaid' | 'credit';

export interface KeyRow {
  id: number;
  label: string;
  tokenHash: string;
  tokenHint: string;
  kind: KeyKind;
  contactHash: string | null;
  funding: Funding;
  registeredPubkey: string | null;
  currency: string;
  balance: Minor;
  debt: Minor;
  allowedOrigins: string[] | null;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  limits: KeyLimits;
}

export type BudgetPeriod = 'day' | 'week' | 'month';

/** A key's own limits; null fields take the operator's defaults (limits.ts). 0 lifts a limit. */
export interface KeyLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  parallelCalls: number | null;
  sessions: number | null;
  /** The most the key's calls may be charged per period, beside its balance; null: no cap. */
  budget: { amount: Minor; period: BudgetPeriod } | null;
  /** The models the key may call; null: every model. */
  allowedModels: string[] | null;
}

export type UsageStatus = 'ok' | 'cancelled' | 'error';

export interface UsageRow {
  id: number;
  keyId: number;
  callId: string;
  tool: string;
  status: UsageStatus;
  model: string;
  providerId: string | null;
  route: string;
  hops: number;
  sellerHash: string | null;
  inputTokens: number;
  outputTokens: number;
  transferBytes: number;
  estimated: boolean;
  charge: Minor;
  fromBalance: Minor;
  fromCredit: Minor;
  currency: string;
  cost: Minor;
  costCurrency: string | null;
  error: string | null;
  startedAt: number;
  finishedAt: number;
}

export type NewUsage = Omit<UsageRow, 'id'>;

export interface TopupRow {
  id: number;
  txid: string;
  keyId: number | null;
  contactHash: string;
  amount: Minor;
  currency: string;
  toDebt: Minor;
  toBalance: Minor;
  status: 'credited' | 'unmatched';
  reason: string | null;
  at: number;
}

export type NewTopup = Omit<TopupRow, 'id'>;

const money = (whole: number | bigint, frac: number | bigint): Minor => fromParts(whole, frac);
const parts = (value: Minor): [bigint, bigint] => {
  const { whole, frac } = toParts(value);
  return [whole, frac];
};

const sumOf = (r: unknown): Minor => {
  const { w, f } = r as { w: number | bigint; f: number | bigint };
  return BigInt(w) * 100_000_000n + BigInt(f);
};

// The tables' rows as SQLite returns them (columns by name; whole/frac pairs of amounts as stored).
interface RawProvider {
  id: string;
  preset: string;
  endpoint: string;
  label: string;
  token_enc: string | null;
  position: number;
  created_at: number;
  updated_at: number;
}

interface RawModel {
  provider_id: string;
  model_id: string;
  label: string;
  enabled: number;
  pricing_mode: PricingMode;
  markup_pct: string;
  cost_in_per_1m: string;
  cost_out_per_1m: string;
  cost_xfer_per_gb: string;
  cost_currency: string | null;
  manual_in_per_1m: string;
  manual_out_per_1m: string;
  manual_xfer_per_gb: string;
  max_output_tokens: number | null;
}

type Whole = number | bigint;

interface RawKey {
  id: number;
  label: string;
  token_hash: string;
  token_hint: string;
  kind: KeyKind;
  contact_hash: string | null;
  funding: Funding;
  registered_pubkey: string | null;
  currency: string;
  balance_whole: Whole;
  balance_frac: Whole;
  debt_whole: Whole;
  debt_frac: Whole;
  allowed_origins: string | null;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  parallel_calls: number | null;
  sessions: number | null;
  budget_whole: Whole | null;
  budget_frac: Whole | null;
  budget_period: BudgetPeriod | null;
  allowed_models: string | null;
}

interface RawUsage {
  id: number;
  key_id: number;
  call_id: string;
  tool: string;
  status: UsageStatus;
  model: string;
  provider_id: string | null;
  route: string;
  hops: number;
  seller_hash: string | null;
  input_tokens: number;
  output_tokens: number;
  transfer_bytes: number;
  estimated: number;
  charge_whole: Whole;
  charge_frac: Whole;
  from_balance_whole: Whole;
  from_balance_frac: Whole;
  from_credit_whole: Whole;
  from_credit_frac: Whole;
  currency: string;
  cost_whole: Whole;
  cost_frac: Whole;
  cost_currency: string | null;
  error: string | null;
  started_at: number;
  finished_at: number;
}

interface RawTopup {
  id: number;
  txid: string;
  key_id: number | null;
  contact_hash: string;
  amount_whole: Whole;
  amount_frac: Whole;
  currency: string;
  to_debt_whole: Whole;
  to_debt_frac: Whole;
  to_balance_whole: Whole;
  to_balance_frac: Whole;
  status: TopupRow['status'];
  reason: string | null;
  at: number;
}

function providerOf(row: unknown): ProviderRow {
  const r = row as RawProvider;
  return {
    id: r.id,
    preset: r.preset,
    endpoint: r.endpoint,
    label: r.label,
    tokenEnc: r.token_enc,
    position: r.position,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function modelOf(row: unknown): ModelRow {
  const r = row as RawModel;
  return {
    providerId: r.provider_id,
    id: r.model_id,
    label: r.label,
    enabled: r.enabled === 1,
    pricingMode: r.pricing_mode,
    markupPct: r.markup_pct,
    costInPer1m: r.cost_in_per_1m,
    costOutPer1m: r.cost_out_per_1m,
    costXferPerGb: r.cost_xfer_per_gb,
    costCurrency: r.cost_currency,
    manualInPer1m: r.manual_in_per_1m,
    manualOutPer1m: r.manual_out_per_1m,
    manualXferPerGb: r.manual_xfer_per_gb,
    maxOutputTokens: r.max_output_tokens,
  };
}

function keyOf(row: unknown): KeyRow {
  const r = row as RawKey;
  return {
    id: r.id,
    label: r.label,
    tokenHash: r.token_hash,
    tokenHint: r.token_hint,
    kind: r.kind,
    contactHash: r.contact_hash,
    funding: r.funding,
    registeredPubkey: r.registered_pubkey,
    currency: r.currency,
    balance: money(r.balance_whole, r.balance_frac),
    debt: money(r.debt_whole, r.debt_frac),
    allowedOrigins: r.allowed_origins ? (JSON.parse(r.allowed_origins) as string[]) : null,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
    limits: {
      requestsPerMinute: r.requests_per_minute,
      tokensPerMinute: r.tokens_per_minute,
      parallelCalls: r.parallel_calls,
      sessions: r.sessions,
      budget: r.budget_period ? { amount: money(r.budget_whole ?? 0, r.budget_frac ?? 0), period: r.budget_period } : null,
      allowedModels: r.allowed_models ? (JSON.parse(r.allowed_models) as string[]) : null,
    },
  };
}

function usageOf(row: unknown): UsageRow {
  const r = row as RawUsage;
  return {
    id: r.id,
    keyId: r.key_id,
    callId: r.call_id,
    tool: r.tool,
    status: r.status,
    model: r.model,
    providerId: r.provider_id,
    route: r.route,
    hops: r.hops,
    sellerHash: r.seller_hash,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    transferBytes: r.transfer_bytes,
    estimated: r.estimated === 1,
    charge: money(r.charge_whole, r.charge_frac),
    fromBalance: money(r.from_balance_whole, r.from_balance_frac),
    fromCredit: money(r.from_credit_whole, r.from_credit_frac),
    currency: r.currency,
    cost: money(r.cost_whole, r.cost_frac),
    costCurrency: r.cost_currency,
    error: r.error,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

function topupOf(row: unknown): TopupRow {
  const r = row as RawTopup;
  return {
    id: r.id,
    txid: r.txid,
    keyId: r.key_id,
    contactHash: r.contact_hash,
    amount: money(r.amount_whole, r.amount_frac),
    currency: r.currency,
    toDebt: money(r.to_debt_whole, r.to_debt_frac),
    toBalance: money(r.to_balance_whole, r.to_balance_frac),
    status: r.status,
    reason: r.reason,
    at: r.at,
  };
}

export interface NewKey {
  label: string;
  tokenHash: string;
  tokenHint: string;
  kind: KeyKind;
  contactHash: string | null;
  funding: Funding;
  registeredPubkey: string | null;
  currency: string;
  createdAt: number;
  expiresAt: number | null;
}

/** Queries of the plugin's tables. Writes that belong together are grouped by the caller in `ctx.db.tx`. */
export class McpStore {
  readonly #s: Record<string, Statement>;
  /** Keys as committed: every call authenticates one by its token's hash and settles on it (ReadCache). */
  readonly #keys: ReadCache;

  /**
   * `txs` (the plugin's `ctx.db`): with it, a settled key stays kept as written once its transaction commits
   * (ReadCache.amended), and a savepoint that fails drops what it queued for that commit.
   */
  constructor(
    private readonly db: Database,
    private readonly txs?: Pick<PluginDb, 'afterCommit' | 'savepoint'>,
  ) {
    this.#keys = new ReadCache(db, txs && ((fn) => txs.afterCommit(fn)));
    const p = (sql: string): Statement => db.prepare(sql);
    this.#s = {
      config: p('SELECT name, value FROM mcp_config'),
      setConfig: p('INSERT INTO mcp_config (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
      providers: p('SELECT * FROM mcp_providers ORDER BY position, id'),
      provider: p('SELECT * FROM mcp_providers WHERE id = ?'),
      insertProvider: p(
        'INSERT INTO mcp_providers (id, preset, endpoint, label, token_enc, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      updateProvider: p('UPDATE mcp_providers SET preset = ?, endpoint = ?, label = ?, token_enc = ?, updated_at = ? WHERE id = ?'),
      maxProviderPosition: p('SELECT COALESCE(MAX(position), -1) AS m FROM mcp_providers'),
      models: p('SELECT * FROM mcp_models ORDER BY provider_id, position'),
      deleteModels: p('DELETE FROM mcp_models WHERE provider_id = ?'),
      insertModel: p(`INSERT INTO mcp_models (provider_id, model_id, position, label, enabled, pricing_mode, markup_pct, cost_in_per_1m,
          cost_out_per_1m, cost_xfer_per_gb, cost_currency, manual_in_per_1m, manual_out_per_1m, manual_xfer_per_gb, max_output_tokens)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertKey: p(`INSERT INTO mcp_keys (label, token_hash, token_hint, kind, contact_hash, funding, registered_pubkey, currency, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      key: p('SELECT * FROM mcp_keys WHERE id = ?'),
      keyByHash: p('SELECT * FROM mcp_keys WHERE token_hash = ?'),
      keys: p('SELECT * FROM mcp_keys ORDER BY id'),
      keyCount: p('SELECT COUNT(*) AS n FROM mcp_keys WHERE revoked_at IS NULL'),
      keysOfContact: p('SELECT * FROM mcp_keys WHERE contact_hash = ? ORDER BY id'),
      setMoney: p('UPDATE mcp_keys SET balance_whole = ?, balance_frac = ?, debt_whole = ?, debt_frac = ? WHERE id = ?'),
      touchKey: p('UPDATE mcp_keys SET last_used_at = ? WHERE id = ?'),
      settleKey: p('UPDATE mcp_keys SET balance_whole = ?, balance_frac = ?, debt_whole = ?, debt_frac = ?, last_used_at = ? WHERE id = ?'),
      revokeKey: p('UPDATE mcp_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      setOrigins: p('UPDATE mcp_keys SET allowed_origins = ? WHERE id = ?'),
      setLimits: p(`UPDATE mcp_keys SET requests_per_minute = ?, tokens_per_minute = ?, parallel_calls = ?, sessions = ?, budget_whole = ?,
          budget_frac = ?, budget_period = ?, allowed_models = ? WHERE id = ?`),
      chargedSince: p(`SELECT COALESCE(SUM(charge_whole), 0) AS w, COALESCE(SUM(charge_frac), 0) AS f FROM mcp_usage WHERE key_id = ? AND finished_at >= ?`),
      reapable: p(`SELECT id FROM mcp_keys WHERE kind = 'bootstrap' AND created_at <= ? AND last_used_at IS NULL AND contact_hash IS NULL
        AND balance_whole = 0 AND balance_frac = 0 AND debt_whole = 0 AND debt_frac = 0
        AND NOT EXISTS (SELECT 1 FROM mcp_topups t WHERE t.key_id = mcp_keys.id)`),
      deleteKey: p('DELETE FROM mcp_keys WHERE id = ?'),
      insertUsage: p(`INSERT INTO mcp_usage (key_id, call_id, tool, status, model, provider_id, route, hops, seller_hash, input_tokens, output_tokens,
          transfer_bytes, estimated, charge_whole, charge_frac, from_balance_whole, from_balance_frac, from_credit_whole, from_credit_frac,
          currency, cost_whole, cost_frac, cost_currency, error, started_at, finished_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      usageOfKey: p('SELECT * FROM mcp_usage WHERE key_id = ? ORDER BY id DESC LIMIT ?'),
      usageAll: p('SELECT * FROM mcp_usage ORDER BY id DESC LIMIT ?'),
      usageRow: p('SELECT * FROM mcp_usage WHERE id = ?'),
      usageTotals: p(`SELECT COALESCE(SUM(charge_whole), 0) AS w, COALESCE(SUM(charge_frac), 0) AS f FROM mcp_usage WHERE key_id = ?`),
      insertTopup: p(`INSERT OR IGNORE INTO mcp_topups (txid, key_id, contact_hash, amount_whole, amount_frac, currency, to_debt_whole, to_debt_frac,
          to_balance_whole, to_balance_frac, status, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      topupOfTx: p('SELECT * FROM mcp_topups WHERE txid = ?'),
      topupsOfKey: p('SELECT * FROM mcp_topups WHERE key_id = ? ORDER BY id DESC LIMIT ?'),
      topupsAll: p('SELECT * FROM mcp_topups ORDER BY id DESC LIMIT ?'),
    };
  }

  /** Runs `fn` as a savepoint inside the caller's transaction: on a throw only its own writes are undone. */
  savepoint<T>(fn: () => T): T {
    return this.txs ? this.txs.savepoint(fn) : this.db.transaction(fn)();
  }

  // --- config

  config(): Map<string, string> {
    return new Map((this.#s.config!.all() as { name: string; value: string }[]).map((r) => [r.name, r.value]));
  }

  setConfig(name: string, value: string): void {
    this.#s.setConfig!.run(name, value);
  }

  // --- providers and models

  providers(): ProviderRow[] {
    return this.#s.providers!.all().map(providerOf);
  }

  provider(id: string): ProviderRow | null {
    const r = this.#s.provider!.get(id);
    return r ? providerOf(r) : null;
  }

  insertProvider(row: Omit<ProviderRow, 'position'>): void {
    const position = (this.#s.maxProviderPosition!.get() as { m: number }).m + 1;
    this.#s.insertProvider!.run(row.id, row.preset, row.endpoint, row.label, row.tokenEnc, position, row.createdAt, row.updatedAt);
  }

  updateProvider(row: ProviderRow): void {
    this.#s.updateProvider!.run(row.preset, row.endpoint, row.label, row.tokenEnc, row.updatedAt, row.id);
  }

  models(): ModelRow[] {
    return this.#s.models!.all().map(modelOf);
  }

  replaceModels(providerId: string, models: readonly ModelRow[]): void {
    this.#s.deleteModels!.run(providerId);
    models.forEach((m, i) =>
      this.#s.insertModel!.run(
        providerId,
        m.id,
        i,
        m.label,
        m.enabled ? 1 : 0,
        m.pricingMode,
        m.markupPct,
        m.costInPer1m,
        m.costOutPer1m,
        m.costXferPerGb,
        m.costCurrency,
        m.manualInPer1m,
        m.manualOutPer1m,
        m.manualXferPerGb,
        m.maxOutputTokens,
      ),
    );
  }

  // --- keys

  insertKey(key: NewKey): KeyRow {
    // A token tried before its key existed is kept as unknown: every kept lookup goes.
    this.#keys.written();
    const r = this.#s.insertKey!.run(
      key.label,
      key.tokenHash,
      key.tokenHint,
      key.kind,
      key.contactHash,
      key.funding,
      key.registeredPubkey,
      key.currency,
      key.createdAt,
      key.expiresAt,
    );
    return this.key(Number(r.lastInsertRowid))!;
  }

  key(id: number): KeyRow | null {
    const r = this.#keys.read(`id ${id}`, () => this.#s.key!.get(id) ?? null);
    return r ? keyOf(r) : null;
  }

  /** A token's key: its id is kept by hash (a key's token never changes), its row as `key` keeps it. */
  keyByHash(hash: string): KeyRow | null {
    const id = this.#keys.read(`hash ${hash}`, () => (this.#s.keyByHash!.get(hash) as { id: number } | undefined)?.id ?? null);
    return id === null ? null : this.key(id);
  }

  keys(): KeyRow[] {
    return this.#s.keys!.all().map(keyOf);
  }

  keysOfContact(contactHash: string): KeyRow[] {
    return this.#s.keysOfContact!.all(contactHash).map(keyOf);
  }

  /** Before a write of key `id`: its kept row goes (its hash's entry names only its id, which stays right). */
  #keyWritten(id: number): void {
    this.#keys.written((k) => k === `id ${id}`);
  }

  activeKeyCount(): number {
    return (this.#s.keyCount!.get() as { n: number }).n;
  }

  setMoney(id: number, balance: Minor, debt: Minor): void {
    // Conservation: a key never holds a negative balance or debt; a write that would is a bug, stopped loudly.
    if (balance < 0n || debt < 0n) throw new Error(`mcp key ${id}: balance ${balance} and debt ${debt} must not be negative`);
    this.#keyWritten(id);
    this.#s.setMoney!.run(...parts(balance), ...parts(debt), id);
  }

  /**
   * New balance and debt after a call, and its time as the key's last use. Once the transaction has committed, the
   * key's next call reads no row: the kept row is changed as this write changes it.
   */
  settleKey(id: number, balance: Minor, debt: Minor, at: number): void {
    if (balance < 0n || debt < 0n) throw new Error(`mcp key ${id}: balance ${balance} and debt ${debt} must not be negative`);
    const [bw, bf] = parts(balance);
    const [dw, df] = parts(debt);
    this.#keys.amended(
      (k) => k === `id ${id}`,
      // As SQLite reads them back: plain numbers (money columns stay far below 2^53). A key kept as missing stays forgotten.
      (_k, kept) =>
        kept === null ? undefined : { ...(kept as Record<string, unknown>), balance_whole: Number(bw), balance_frac: Number(bf), debt_whole: Number(dw), debt_frac: Number(df), last_used_at: at },
    );
    this.#s.settleKey!.run(bw, bf, dw, df, at, id);
  }

  touchKey(id: number, at: number): void {
    this.#keyWritten(id);
    this.#s.touchKey!.run(at, id);
  }

  revokeKey(id: number, at: number): boolean {
    this.#keyWritten(id);
    return this.#s.revokeKey!.run(at, id).changes === 1;
  }

  setOrigins(id: number, origins: readonly string[] | null): void {
    this.#keyWritten(id);
    this.#s.setOrigins!.run(origins && origins.length ? JSON.stringify(origins) : null, id);
  }

  setLimits(id: number, l: KeyLimits): void {
    const budget = l.budget ? parts(l.budget.amount) : [null, null];
    this.#keyWritten(id);
    this.#s.setLimits!.run(l.requestsPerMinute, l.tokensPerMinute, l.parallelCalls, l.sessions, ...budget, l.budget?.period ?? null, l.allowedModels ? JSON.stringify(l.allowedModels) : null, id);
  }

  /** Removes bootstrap keys made before `createdBefore` that were never used, bound or funded; returns their ids. */
  reapBootstrapKeys(createdBefore: number): number[] {
    const ids = (this.#s.reapable!.all(createdBefore) as { id: number }[]).map((r) => r.id);
    if (ids.length) this.#keys.written();
    for (const id of ids) this.#s.deleteKey!.run(id);
    return ids;
  }

  // --- usage

  insertUsage(u: NewUsage): number {
    const r = this.#s.insertUsage!.run(
      u.keyId,
      u.callId,
      u.tool,
      u.status,
      u.model,
      u.providerId,
      u.route,
      u.hops,
      u.sellerHash,
      u.inputTokens,
      u.outputTokens,
      u.transferBytes,
      u.estimated ? 1 : 0,
      ...parts(u.charge),
      ...parts(u.fromBalance),
      ...parts(u.fromCredit),
      u.currency,
      ...parts(u.cost),
      u.costCurrency,
      u.error,
      u.startedAt,
      u.finishedAt,
    );
    return Number(r.lastInsertRowid);
  }

  usage(limit: number, keyId?: number): UsageRow[] {
    const rows = keyId === undefined ? this.#s.usageAll!.all(limit) : this.#s.usageOfKey!.all(keyId, limit);
    return rows.map(usageOf);
  }

  /** A page of usage rows, newest first, narrowed by key, model and time; `total` counts what the filters match. */
  usagePage(f: UsageFilter & { limit: number; offset: number }): { rows: UsageRow[]; total: number } {
    const { clause, params } = usageWhere(f);
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM mcp_usage ${clause}`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM mcp_usage ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...params, f.limit, f.offset);
    return { rows: rows.map(usageOf), total };
  }

  /**
   * Spend and tokens per UTC day, key, model and currency, oldest day first: what a chart of inference over time
   * needs, without shipping every usage row. `total` counts the groups.
   */
  usageByDay(f: UsageFilter & { limit: number; offset: number }): { rows: UsageDay[]; total: number } {
    const { clause, params } = usageWhere(f);
    const grouped = `SELECT date(started_at / 1000, 'unixepoch') AS day, key_id, model, currency, COUNT(*) AS calls,
        SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(charge_whole) AS w, SUM(charge_frac) AS f
      FROM mcp_usage ${clause} GROUP BY day, key_id, model, currency`;
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM (${grouped})`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(`${grouped} ORDER BY day, key_id, model, currency LIMIT ? OFFSET ?`).all(...params, f.limit, f.offset) as {
      day: string;
      key_id: number;
      model: string;
      currency: string;
      calls: number;
      input_tokens: number;
      output_tokens: number;
      w: number | bigint;
      f: number | bigint;
    }[];
    return {
      rows: rows.map((r) => ({
        day: r.day,
        keyId: r.key_id,
        model: r.model,
        currency: r.currency,
        calls: r.calls,
        inputTokens: r.input_tokens,
        outputTokens: r.output_tokens,
        charge: fromParts(r.w, r.f),
      })),
      total,
    };
  }

  usageRow(id: number): UsageRow | null {
    const r = this.#s.usageRow!.get(id);
    return r ? usageOf(r) : null;
  }

  /** Sum of every charge of a key (reconciliation). */
  chargedTotal(keyId: number): Minor {
    return sumOf(this.#s.usageTotals!.get(keyId));
  }

  /** Sum of the charges of a key's calls that finished at or after `since` (its budget period). */
  chargedSince(keyId: number, since: number): Minor {
    return sumOf(this.#s.chargedSince!.get(keyId, since));
  }

  // --- top-ups

  /** False when the payment was recorded before (a second delivery of the same event). */
  insertTopup(t: NewTopup): boolean {
    const r = this.#s.insertTopup!.run(
      t.txid,
      t.keyId,
      t.contactHash,
      ...parts(t.amount),
      t.currency,
      ...parts(t.toDebt),
      ...parts(t.toBalance),
      t.status,
      t.reason,
      t.at,
    );
    return r.changes === 1;
  }

  topupOfTx(txid: string): TopupRow | null {
    const r = this.#s.topupOfTx!.get(txid);
    return r ? topupOf(r) : null;
  }

  topups(limit: number, keyId?: number): TopupRow[] {
    const rows = keyId === undefined ? this.#s.topupsAll!.all(limit) : this.#s.topupsOfKey!.all(keyId, limit);
    return rows.map(topupOf);
  }
}

/** What the usage listings narrow by: a key, a model, and `startedAt` bounds in ms (from <= t < to). */
export interface UsageFilter {
  keyId?: number;
  model?: string;
  from?: number;
  to?: number;
}

/** One group of `usageByDay`. */
export interface UsageDay {
  day: string;
  keyId: number;
  model: string;
  currency: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  charge: Minor;
}

function usageWhere(f: UsageFilter): { clause: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown): void => {
    where.push(sql);
    params.push(value);
  };
  if (f.keyId !== undefined) add('key_id = ?', f.keyId);
  if (f.model !== undefined) add('model = ?', f.model);
  if (f.from !== undefined) add('started_at >= ?', f.from);
  if (f.to !== undefined) add('started_at < ?', f.to);
  return { clause: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}
