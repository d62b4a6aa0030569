import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, tempDataDir, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string; errors?: { setting: string; message: string }[]; settings?: string[] };
}

interface SettingsView {
  settings: Record<string, unknown>;
  overridden: string[];
  read_only: string[];
  categories: Record<string, string[]>;
}

const SETTINGS = '/api/v1/system/settings';

async function readSettings(t: TestNode): Promise<SettingsView> {
  const res = await t.admin.get<Envelope<SettingsView>>(SETTINGS);
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * One row per declared setting (kernel and system plugin). `valid` is a new value that must round-trip as
 * `expect`; `invalid` must be refused with validation_error and change nothing. `also` travels with the valid
 * value when a cross-setting rule needs it. Rows without `valid` are exercised by their own tests below.
 */
interface Row {
  valid?: unknown;
  expect?: unknown;
  also?: Record<string, unknown>;
  invalid: unknown;
}

const TABLE: Record<string, Row> = {
  // kernel settings
  name: { valid: 'Test node', expect: 'Test node', invalid: 'x'.repeat(65) },
  hostname: { valid: 'http://node.example:8080/', expect: 'http://node.example:8080', invalid: 'ftp://node.example' },
  api_enabled: { invalid: 'maybe' },
  api_cors_allowed_origins: { valid: 'https://a.example, HTTPS://B.example:8443/', expect: 'https://a.example,https://b.example:8443', invalid: 'not a url' },
  rate_limit_enabled: { valid: false, expect: false, invalid: 'sometimes' },
  trusted_proxies: { valid: '10.0.0.1, 10.0.1.0/24', expect: ['10.0.0.1', '10.0.1.0/24'], invalid: '0.0.0.0/0' },
  metrics_allowed_addresses: { valid: '127.0.0.1, 192.0.2.0/24', expect: ['127.0.0.1', '192.0.2.0/24'], invalid: 'localhost' },
  log_level: { valid: 'debug', expect: 'DEBUG', invalid: 'LOUD' },
  log_max_entries: { valid: 500, expect: 500, invalid: 5 },
  default_transport_mode: { valid: 'HTTP', expect: 'http', invalid: 'pigeon' },
  http_transport_timeout_seconds: { valid: '30', expect: 30, invalid: 4 },
  tor_transport_timeout_seconds: { valid: 60, expect: 60, invalid: 301 },
  tor_circuit_max_failures: { valid: 5, expect: 5, invalid: 0 },
  tor_circuit_cooldown_seconds: { valid: 600, expect: 600, invalid: 59 },
  tor_failure_transport_fallback: { valid: 'off', expect: false, invalid: 'sometimes' },
  tor_fallback_require_encrypted: { valid: 'no', expect: false, invalid: 2 },
  cleanup_delivery_retention_days: { valid: 10, expect: 10, invalid: 0 },
  cleanup_dlq_retention_days: { valid: 30, expect: 30, invalid: 0 },
  cleanup_metrics_retention_days: { valid: 30, expect: 30, invalid: -1 },
  // system plugin settings
  max_fee: { valid: 10, expect: 10, invalid: -1 },
  default_fee: { valid: 1.5, expect: 1.5, invalid: 101 },
  min_fee: { valid: '0.00000001', expect: '0.00000001', invalid: '0.000000001' },
  default_credit_limit: { valid: 250.5, expect: '250.5', invalid: '-5' },
  direct_tx_expiration: { valid: 120, expect: 120, invalid: 604_801 },
  auto_accept_transaction: { valid: false, expect: false, invalid: 'perhaps' },
  allowed_currencies: { valid: 'usd, VWL, Hours, vwl', expect: ['USD', 'VWL', 'Hours'], invalid: 'VWL,B@D' },
  default_currency: { valid: 'eur', expect: 'EUR', also: { allowed_currencies: 'USD,VWL,Hours,EUR' }, invalid: 'ZZZ' },
  auto_reject_unknown_currency: { valid: false, expect: false, invalid: 'nah' },
  max_p2p_level: { valid: 8, expect: 8, invalid: 11 },
  p2p_expiration: { valid: 600, expect: 600, invalid: 59 },
  hop_budget_randomized: { valid: false, expect: false, invalid: 'x' },
  p2p_rate_limit_per_minute: { valid: 120, expect: 120, invalid: 0 },
  contact_status_enabled: { valid: false, expect: false, invalid: 'x' },
  contact_status_sync_on_ping: { valid: false, expect: false, invalid: 'x' },
  auto_accept_restored_contact: { valid: false, expect: false, invalid: 'x' },
  auto_chain_drop_propose: { valid: false, expect: false, invalid: 'x' },
  auto_chain_drop_accept: { valid: true, expect: true, invalid: 'x' },
  auto_chain_drop_accept_guard: { valid: false, expect: false, invalid: 'x' },
  auto_backup_enabled: { valid: false, expect: false, invalid: 'x' },
  backup_retention_count: { valid: 5, expect: 5, invalid: 0 },
  backup_retention_scope: { valid: 'KIND', expect: 'kind', invalid: 'named' },
  backup_cron_hour: { valid: 23, expect: 23, invalid: 24 },
  backup_cron_minute: { valid: 30, expect: 30, invalid: 60 },
  cleanup_held_tx_retention_days: { valid: 14, expect: 14, invalid: 0 },
  cleanup_rp2p_retention_days: { valid: 60, expect: 60, invalid: 0 },
  payment_requests_archive_retention_days: { valid: 90, expect: 90, invalid: 0 },
  payment_requests_archive_batch_size: { valid: 1000, expect: 1000, invalid: 0 },
  transactions_archive_retention_days: { valid: 60, expect: 60, invalid: 0 },
  transactions_archive_batch_size: { valid: 250, expect: 250, invalid: 100_001 },
  rate_limit_max_attempts: { valid: 20, expect: 20, invalid: 0 },
  rate_limit_window_seconds: { valid: 120, expect: 120, invalid: 0 },
  rate_limit_block_seconds: { valid: 600, expect: 600, invalid: 0 },
  max_output: { valid: 0, expect: 0, invalid: -1 },
  display_decimals: { valid: 8, expect: 8, invalid: 9 },
  display_date_format: { valid: 'YYYY-MM-DD [at] HH:mm', expect: 'YYYY-MM-DD [at] HH:mm', invalid: '%Y-%m-%d' },
  analytics_consent_asked: { valid: true, expect: true, invalid: 'x' },
  analytics_enabled: { valid: 'yes', expect: true, invalid: 'sure' },
  analytics_opt_in_at: { invalid: '2024-01-01T00:00:00Z' },
  // contacts plugin settings (test nodes start with it on: test/support/node.ts)
  peer_private_addresses_allowed: { valid: false, expect: false, invalid: 'x' },
  // analytics plugin settings
  analytics_url: { valid: 'https://collector.example/', expect: 'https://collector.example', invalid: 'http://collector.example' },
  analytics_ca_file: { valid: '/etc/ssl/collector-ca.pem', expect: '/etc/ssl/collector-ca.pem', invalid: 'relative/ca.pem' },
  update_check_enabled: { valid: false, expect: false, invalid: 'x' },
  update_check_url: { valid: 'http://127.0.0.1:9/release.json', expect: 'http://127.0.0.1:9/release.json', invalid: 'not a url' },
  debug_report_url: { valid: 'http://127.0.0.1:9/report', expect: 'http://127.0.0.1:9/report', invalid: 'ftp://x' },
  debug_report_via_tor: { valid: false, expect: false, invalid: 'x' },
  // routing plugin settings
  auto_cycle_clearing: { valid: true, expect: true, invalid: 'x' },
  clearing_max_cycle_length: { valid: 4, expect: 4, invalid: 11 },
  // kernel connection budgets (issue 30)
  connections_per_address: { valid: 128, expect: 128, invalid: 7 },
  connections_per_proxy_address: { valid: 2048, expect: 2048, invalid: 100_001 },
  // webhooks plugin settings
  webhooks_private_targets_allowed: { valid: true, expect: true, invalid: 'x' },
  webhook_line_threshold_percent: { valid: 90, expect: 90, invalid: 0 },
};

/** Defaults chosen in docs/api/system.md for the settings the system plugin declares. */
const SYSTEM_DEFAULTS: Record<string, unknown> = {
  default_fee: 0, max_fee: 5, min_fee: '0', default_credit_limit: '100', direct_tx_expiration: 0,
  auto_accept_transaction: true, allowed_currencies: ['VWL'], default_currency: 'VWL', auto_reject_unknown_currency: true,
  max_p2p_level: 6, p2p_expiration: 300, hop_budget_randomized: true, p2p_rate_limit_per_minute: 60,
  contact_status_enabled: true, contact_status_sync_on_ping: true, auto_accept_restored_contact: true,
  auto_chain_drop_propose: true, auto_chain_drop_accept: false, auto_chain_drop_accept_guard: true,
  auto_backup_enabled: true, backup_retention_count: 3, backup_retention_scope: 'all', backup_cron_hour: 0, backup_cron_minute: 0,
  cleanup_held_tx_retention_days: 7, cleanup_rp2p_retention_days: 30,
  payment_requests_archive_retention_days: 180, payment_requests_archive_batch_size: 500,
  transactions_archive_retention_days: 30, transactions_archive_batch_size: 500,
  rate_limit_max_attempts: 10, rate_limit_window_seconds: 60, rate_limit_block_seconds: 300,
  max_output: 5, display_decimals: 2, display_date_format: 'DD/MM/YYYY HH:mm:ss',
  analytics_enabled: false, analytics_consent_asked: false, analytics_opt_in_at: null, analytics_url: '', analytics_ca_file: '',
  update_check_enabled: true, update_check_url: 'https://api.github.com/repos/wallet-node/wallet-node/releases/latest',
  debug_report_url: '', debug_report_via_tor: true,
};

describe('system settings: every declared setting', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('lists every setting with categories, none overridden, analytics_opt_in_at read-only', async () => {
    const view = await readSettings(t);
    expect(Object.keys(view.settings).sort()).toEqual(Object.keys(TABLE).sort());
    expect(view.overridden).toEqual([]);
    expect(view.read_only).toEqual(['analytics_opt_in_at']);
    const categorised = Object.values(view.categories).flat().sort();
    expect(categorised).toEqual(Object.keys(view.settings).sort());
  });

  it('starts from the documented defaults', async () => {
    const { settings } = await readSettings(t);
    for (const [name, value] of Object.entries(SYSTEM_DEFAULTS)) expect({ name, value: settings[name] }).toEqual({ name, value });
  });

  for (const [name, row] of Object.entries(TABLE)) {
    it(`${name}: a bad value is refused and changes nothing${row.valid !== undefined ? '; a new value round-trips' : ''}`, async () => {
      if (row.valid !== undefined) {
        const res = await t.admin.put<Envelope<{ message: string; updated: Record<string, unknown> }>>(SETTINGS, {
          ...row.also,
          [name]: row.valid,
        });
        expect(res.status).toBe(200);
        expect(res.body.data.message).toBe('Settings updated');
        expect(res.body.data.updated[name]).toEqual(row.expect);
        expect((await readSettings(t)).settings[name]).toEqual(row.expect);
      }
      const before = (await readSettings(t)).settings;
      const bad = await t.admin.put<Envelope>(SETTINGS, { [name]: row.invalid });
      expect(bad.status).toBe(400);
      expect(bad.body.success).toBe(false);
      expect(bad.body.error?.code).toBe('validation_error');
      expect(bad.body.error?.errors?.map((e) => e.setting)).toContain(name);
      expect((await readSettings(t)).settings).toEqual(before);
    });
  }

  it('keeps every changed value across a restart of the process', async () => {
    const before = (await readSettings(t)).settings;
    await t.restart();
    expect((await readSettings(t)).settings).toEqual(before);
  });
});

describe('system settings: update rules', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('refuses an unknown setting with unknown_setting and applies nothing', async () => {
    const before = (await readSettings(t)).settings;
    const res = await t.admin.put<Envelope>(SETTINGS, { default_fee: 2, bogus_setting: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'unknown_setting', settings: ['bogus_setting'] });
    expect((await readSettings(t)).settings).toEqual(before);
  });

  it('refuses a mix of valid and invalid values as a whole', async () => {
    const before = (await readSettings(t)).settings;
    const res = await t.admin.put<Envelope>(SETTINGS, { default_fee: 2, display_decimals: 4, backup_cron_hour: 99 });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('validation_error');
    expect(res.body.error?.errors).toEqual([{ setting: 'backup_cron_hour', message: 'must be between 0 and 23' }]);
    expect((await readSettings(t)).settings).toEqual(before);
  });

  it('accepts camelCase names and answers with snake_case ones', async () => {
    const res = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, { defaultFee: 3, maxOutput: '7' });
    expect(res.status).toBe(200);
    expect(res.body.data.updated).toEqual({ default_fee: 3, max_output: 7 });
  });

  it('refuses the same setting named twice', async () => {
    const res = await t.admin.put<Envelope>(SETTINGS, { default_fee: 1, defaultFee: 2 });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('validation_error');
    expect((await readSettings(t)).settings.default_fee).toBe(3);
  });

  it('answers an empty body with no_fields, a non-object with validation_error, bad JSON with invalid_json', async () => {
    const empty = await t.admin.put<Envelope>(SETTINGS, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error?.code).toBe('no_fields');
    const list = await t.admin.put<Envelope>(SETTINGS, [1, 2]);
    expect(list.status).toBe(400);
    expect(list.body.error?.code).toBe('validation_error');
    const broken = await t.admin.put<Envelope>(SETTINGS, '{"default_fee":');
    expect(broken.status).toBe(400);
    expect(broken.body.error?.code).toBe('invalid_json');
  });

  it('refuses CORS origins that are not scheme://host[:port] or *, naming them', async () => {
    for (const bad of ['not a url', 'https://a.example/app', 'a.example', 'https://a.example:99999', 'https://user@a.example', '*.example']) {
      const res = await t.admin.put<Envelope>(SETTINGS, { api_cors_allowed_origins: `https://ok.example,${bad}` });
      expect({ bad, status: res.status, code: res.body.error?.code }).toEqual({ bad, status: 400, code: 'validation_error' });
      expect(res.body.error?.errors).toEqual([{ setting: 'api_cors_allowed_origins', message: expect.stringContaining(JSON.stringify(bad)) }]);
    }
    const good = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, {
      api_cors_allowed_origins: '*, http://192.168.1.20:3000, https://[2001:db8::1]:8443, app://x',
    });
    expect(good.body.data.updated).toEqual({ api_cors_allowed_origins: '*,http://192.168.1.20:3000,https://[2001:db8::1]:8443,app://x' });
    expect((await t.admin.put<Envelope>(SETTINGS, { api_cors_allowed_origins: '' })).status).toBe(200);
  });

  it('takes any date format string built from the tokens, and refuses others saying why', async () => {
    for (const format of ['YYYY-MM-DD', 'DD.MM.YYYY [um] HH:mm', 'MMM DD, YYYY hh:mm:ss A', 'YYYY-MM-DDTHH:mm:ss.SSSZ', 'HH:mm', 'unix']) {
      const res = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, { display_date_format: format });
      expect({ format, status: res.status, updated: res.body.data?.updated }).toEqual({ format, status: 200, updated: { display_date_format: format } });
    }
    const refusals: [string, RegExp][] = [
      ['%Y-%m-%d', /"Y" at position 2 is no token/],
      ['yyyy-mm-dd', /"y" at position 1 is no token.*case matters/],
      ['d/m/Y H:i:s', /"d" at position 1/],
      ['YYYY [open', /"\[" at position 6/],
      ['-- :: --', /has no token/],
      [`YYYY${'-'.repeat(61)}`, /at most 64 characters/],
    ];
    for (const [format, why] of refusals) {
      const res = await t.admin.put<Envelope>(SETTINGS, { display_date_format: format });
      expect({ format, status: res.status, code: res.body.error?.code }).toEqual({ format, status: 400, code: 'validation_error' });
      expect(res.body.error?.errors?.[0]).toEqual({ setting: 'display_date_format', message: expect.stringMatching(why) });
    }
    expect((await readSettings(t)).settings.display_date_format).toBe('unix');
    await t.admin.put(SETTINGS, { display_date_format: 'DD/MM/YYYY HH:mm:ss' });
  });

  it('keeps fee percents to 8 decimals', async () => {
    const res = await t.admin.put<Envelope>(SETTINGS, { default_fee: 0.123456789 });
    expect(res.status).toBe(400);
    expect(res.body.error?.errors).toEqual([{ setting: 'default_fee', message: 'must have at most 8 decimals' }]);
    const ok = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, { max_fee: '12.5' });
    expect(ok.body.data.updated).toEqual({ max_fee: 12.5 });
  });

  it('keeps default_currency inside allowed_currencies (case-insensitive) and normalises codes', async () => {
    const dropDefault = await t.admin.put<Envelope>(SETTINGS, { allowed_currencies: ['USD'] });
    expect(dropDefault.status).toBe(400);
    expect(dropDefault.body.error?.errors).toEqual([{ setting: 'default_currency', message: 'VWL is not in allowed_currencies' }]);

    const outside = await t.admin.put<Envelope>(SETTINGS, { default_currency: 'USD' });
    expect(outside.status).toBe(400);
    expect(outside.body.error?.code).toBe('validation_error');

    const both = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, {
      allowed_currencies: ['usd', 'Hours', 'chf'],
      default_currency: 'hours',
    });
    expect(both.status).toBe(200);
    expect(both.body.data.updated).toEqual({ allowed_currencies: ['USD', 'Hours', 'CHF'], default_currency: 'hours' });

    const malformed = await t.admin.put<Envelope>(SETTINGS, { allowed_currencies: 'USD,AB,ABCDEFGHIJK' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error?.message).toContain('AB, ABCDEFGHIJK');
    const emptyList = await t.admin.put<Envelope>(SETTINGS, { allowed_currencies: '' });
    expect(emptyList.status).toBe(400);
    expect(emptyList.body.error?.code).toBe('validation_error');
  });

  it('stamps analytics opt-in and consent when analytics are switched on, keeps opt_in_at read-only', async () => {
    const fresh = await t.admin.get<Envelope<{ analytics: Record<string, unknown> }>>('/api/v1/system/status');
    expect(fresh.body.data.analytics).toEqual({ enabled: false, consent_pending: true, last_submitted: null, opt_in_at: null });

    const started = Date.now();
    const on = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, { analytics_enabled: true });
    expect(on.status).toBe(200);
    const optInAt = on.body.data.updated.analytics_opt_in_at as string;
    expect(on.body.data.updated).toEqual({ analytics_enabled: true, analytics_opt_in_at: optInAt, analytics_consent_asked: true });
    expect(new Date(optInAt).toISOString()).toBe(optInAt);
    expect(Date.parse(optInAt)).toBeGreaterThanOrEqual(started - 1000);

    const status = await t.admin.get<Envelope<{ analytics: Record<string, unknown> }>>('/api/v1/system/status');
    expect(status.body.data.analytics).toEqual({ enabled: true, consent_pending: false, last_submitted: null, opt_in_at: optInAt });

    const off = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, { analytics_enabled: false });
    expect(off.body.data.updated).toEqual({ analytics_enabled: false });
    const after = await t.admin.get<Envelope<{ analytics: Record<string, unknown> }>>('/api/v1/system/status');
    expect(after.body.data.analytics).toEqual({ enabled: false, consent_pending: false, last_submitted: null, opt_in_at: optInAt });

    const forged = await t.admin.put<Envelope>(SETTINGS, { analytics_opt_in_at: '2020-01-01T00:00:00.000Z' });
    expect(forged.status).toBe(400);
    expect(forged.body.error?.code).toBe('validation_error');
    expect((await readSettings(t)).settings.analytics_opt_in_at).toBe(optInAt);
  });

  it('resets every setting to its default only with confirm true, and the reset survives a restart', async () => {
    for (const body of [{}, { confirm: 'true' }, { confirm: 1 }]) {
      const res = await t.admin.post<Envelope>(`${SETTINGS}/reset`, body);
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('confirmation_required');
    }
    expect((await readSettings(t)).settings.default_fee).toBe(3);
    const res = await t.admin.post<Envelope<SettingsView & { message: string }>>(`${SETTINGS}/reset`, { confirm: true });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toBe('Settings reset to defaults');
    for (const [name, value] of Object.entries(SYSTEM_DEFAULTS)) expect({ name, value: res.body.data.settings[name] }).toEqual({ name, value });
    await t.restart();
    const { settings } = await readSettings(t);
    for (const [name, value] of Object.entries(SYSTEM_DEFAULTS)) expect({ name, value: settings[name] }).toEqual({ name, value });
  });
});

describe('system settings: environment overrides', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode({
      env: { NODE_ANALYTICS_ENABLED: 'true', NODE_AUTO_CHAIN_DROP_ACCEPT: 'true', NODE_AUTO_CHAIN_DROP_PROPOSE: 'false' },
    });
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('shows environment values, lists them as overridden and refuses to change them', async () => {
    const view = await readSettings(t);
    expect(view.settings).toMatchObject({ analytics_enabled: true, auto_chain_drop_accept: true, auto_chain_drop_propose: false });
    expect(view.overridden.sort()).toEqual(['analytics_enabled', 'auto_chain_drop_accept', 'auto_chain_drop_propose']);

    const res = await t.admin.put<Envelope>(SETTINGS, { analytics_enabled: false, default_fee: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('validation_error');
    expect(res.body.error?.message).toContain('NODE_ANALYTICS_ENABLED');
    expect((await readSettings(t)).settings).toEqual(view.settings);

    const status = await t.admin.get<Envelope<{ analytics: Record<string, unknown> }>>('/api/v1/system/status');
    expect(status.body.data.analytics).toMatchObject({ enabled: true, consent_pending: false });
  });
});

describe('system settings: TRUSTED_PROXIES overrides trusted_proxies', () => {
  let t: TestNode;
  beforeAll(async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ trustedProxies: ['10.0.0.1'] }));
    t = await startTestNode({ dataDir, env: { TRUSTED_PROXIES: '127.0.0.1, 10.1.2.0/24' } });
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('shows the environment value, lists it as overridden and refuses to change it', async () => {
    const view = await readSettings(t);
    expect(view.settings.trusted_proxies).toEqual(['127.0.0.1', '10.1.2.0/24']);
    expect(view.overridden).toContain('trusted_proxies');

    const res = await t.admin.put<Envelope>(SETTINGS, { trusted_proxies: '192.0.2.1' });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('validation_error');
    expect(res.body.error?.message).toContain('TRUSTED_PROXIES');
    expect((await readSettings(t)).settings.trusted_proxies).toEqual(['127.0.0.1', '10.1.2.0/24']);
  });
});

describe('system settings: switching the REST API off', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('api_enabled=false round-trips in the answer, then the API answers 503 api_disabled until re-enabled on disk', async () => {
    const res = await t.admin.put<Envelope<{ updated: Record<string, unknown> }>>(SETTINGS, { api_enabled: 'false' });
    expect(res.status).toBe(200);
    expect(res.body.data.updated).toEqual({ api_enabled: false });

    const refused = await t.admin.get<Envelope>('/api/v1/system/status');
    expect(refused.status).toBe(503);
    expect(refused.body.error?.code).toBe('api_disabled');

    await t.restart();
    expect((await t.admin.get<Envelope>('/api/v1/system/status')).status).toBe(503);

    const file = join(t.dataDir, 'settings.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(saved.apiEnabled).toBe(false);
    delete saved.apiEnabled;
    writeFileSync(file, JSON.stringify(saved));
    await t.restart();
    expect((await readSettings(t)).settings.api_enabled).toBe(true);
  });
});
