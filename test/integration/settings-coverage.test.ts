/**
 * Every setting proven (issue 34): the settings a node declares (the kernel's catalogue and each builtin plugin's) are
 * enumerated from a running node, and each must appear below with the behaviour test that fails when the setting is
 * ignored, or in one of two lists that docs/decisions.md keeps word for word: "Settings not wired yet" (stored, read by
 * nothing) and "Settings without a behaviour test yet". A new setting fails this test until it has an entry, a
 * setting can leave a list only when its test exists, and a setting listed as not wired fails it once code reads it.
 *
 * An entry names the test file and, when the file names the setting otherwise (an environment variable), what it
 * mentions; the test checks the file exists and mentions it. Which test in the file and why it fails when the setting
 * is ignored is the entry's comment where it is not obvious from the test's title.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsSettings } from '../../builtin-plugins/analytics/settings.js';
import { backupSettings } from '../../builtin-plugins/backups/settings.js';
import { systemSettings } from '../../builtin-plugins/system/settings-catalog.js';
import { kernelSettings } from '../../kernel/settings-catalog.js';
import { ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const ROOT = join(import.meta.dirname, '..', '..');

type Entry = string | { file: string; mentions: string };

/** REST name → the behaviour test. */
const COVERED: Record<string, Entry> = {
  // The node's name reaches a peer as the suggested name of its request.
  name: 'test/integration/cli-safe-text.test.ts',
  // 'opted out: nothing moves' and 'all in: every line 0' turn it off and on.
  auto_cycle_clearing: 'test/integration/routing-clearing.test.ts',
  // The 20-node graph sets it below its longest cycle, which then stays as it was.
  clearing_max_cycle_length: 'test/integration/routing-clearing-graph.test.ts',
  // A loopback receiver is refused until the setting (or NODE_WEBHOOKS_PRIVATE_TARGETS) allows it.
  webhooks_private_targets_allowed: 'test/integration/webhooks.test.ts',
  hostname: 'test/integration/transport-repin.test.ts',
  api_enabled: 'test/integration/auth-http.test.ts',
  api_cors_allowed_origins: 'test/integration/auth-http.test.ts',
  // 'refuses a client address that is not listed, and grants the bearer token from anywhere'.
  metrics_allowed_addresses: 'test/integration/metrics.test.ts',
  rate_limit_enabled: 'test/integration/auth-access.test.ts',
  trusted_proxies: 'test/integration/auth-http.test.ts',
  // A 9th connection waits at 8 per address; a trusted proxy's address takes the shared budget instead.
  connections_per_address: 'test/integration/connection-budget.test.ts',
  connections_per_proxy_address: 'test/integration/connection-budget.test.ts',
  log_level: 'test/integration/system-log-settings.test.ts',
  log_max_entries: 'test/integration/system-log-settings.test.ts',
  default_currency: 'test/integration/contacts-default-currency.test.ts',
  default_transport_mode: 'test/integration/wallet.test.ts',
  // A node's pings to an onion through the tests' SOCKS proxy; the node's clock ends a cooldown.
  http_transport_timeout_seconds: 'test/integration/transport-settings.test.ts',
  tor_transport_timeout_seconds: 'test/integration/transport-settings.test.ts',
  tor_circuit_max_failures: 'test/integration/transport-settings.test.ts',
  tor_circuit_cooldown_seconds: 'test/integration/transport-settings.test.ts',
  tor_failure_transport_fallback: 'test/integration/transport-settings.test.ts',
  tor_fallback_require_encrypted: 'test/integration/transport-settings.test.ts',
  max_fee: 'test/integration/contacts-fee-bounds.test.ts',
  default_fee: 'test/integration/contacts-fee-bounds.test.ts',
  min_fee: 'test/integration/contacts-fee-bounds.test.ts',
  default_credit_limit: 'test/integration/exact-numbers.test.ts',
  direct_tx_expiration: 'test/integration/ledger.test.ts',
  auto_accept_transaction: 'test/integration/routing-approval.test.ts',
  allowed_currencies: 'test/integration/contacts-spec.test.ts',
  auto_reject_unknown_currency: 'test/integration/contacts.test.ts',
  max_p2p_level: 'test/integration/routing.test.ts',
  p2p_expiration: 'test/integration/routing-crash.test.ts',
  hop_budget_randomized: 'test/integration/routing-hop-budget.test.ts',
  // 'counts messages per sending key with p2pRateLimitPerMinute': at 5 the sixth message is refused.
  p2p_rate_limit_per_minute: 'test/integration/edge-peer-limits.test.ts',
  // 'contactStatusSyncOnPing false: a ping that shows the chains disagree pulls nothing, on either side'.
  contact_status_sync_on_ping: 'test/integration/chain-sync.test.ts',
  // 'with contact_status_enabled=false a run pings nobody'.
  contact_status_enabled: 'test/integration/contacts-status-cycle.test.ts',
  auto_accept_restored_contact: 'test/integration/contacts-restored.test.ts',
  auto_chain_drop_propose: { file: 'test/integration/chain-drop.test.ts', mentions: 'NODE_AUTO_CHAIN_DROP_PROPOSE' },
  auto_chain_drop_accept: 'test/integration/chain-drop.test.ts',
  auto_chain_drop_accept_guard: 'test/integration/chain-drop.test.ts',
  auto_backup_enabled: 'test/integration/backups.test.ts',
  backup_retention_count: 'test/integration/backups.test.ts',
  backup_retention_scope: 'test/integration/backups.test.ts',
  backup_cron_hour: 'test/integration/backups.test.ts',
  backup_cron_minute: 'test/integration/backups.test.ts',
  // The nightly jobs archive rows two days old at a retention of 1 day; ignored (30 and 180 days) nothing moves.
  payment_requests_archive_retention_days: 'test/integration/chain-archival.test.ts',
  transactions_archive_retention_days: 'test/integration/chain-archival.test.ts',
  // Dead letters a day old go when the retention drops to 1 day, on a node clock moved ahead.
  cleanup_dlq_retention_days: 'test/integration/dlq.test.ts',
  cleanup_delivery_retention_days: 'test/integration/dlq.test.ts',
  cleanup_rp2p_retention_days: 'test/integration/routing-retention.test.ts',
  cleanup_held_tx_retention_days: 'test/integration/routing-retention.test.ts',
  // Daily peer traffic in GET /system/metrics: a day two days old goes at 1 day, stays at 3.
  cleanup_metrics_retention_days: 'test/integration/peer-traffic-days.test.ts',
  // The archival log lines count the transactions a run took: 3 at batch sizes 1 and 2, 1 at the default 500.
  payment_requests_archive_batch_size: 'test/integration/chain-archival.test.ts',
  transactions_archive_batch_size: 'test/integration/chain-archival.test.ts',
  // 'off: the scheduled check fetches nothing; turned on, it fetches the release source at once'.
  update_check_enabled: 'test/integration/system-update-check.test.ts',
  // 84 %: a payment to 83.5 % of the line stays silent (the default 80 would fire), the next at 84.5 % fires.
  webhook_line_threshold_percent: 'test/integration/webhooks.test.ts',
  rate_limit_max_attempts: 'test/integration/auth-abuse.test.ts',
  // 'rateLimitWindowSeconds: failures older than the window no longer count' (a 1 s window).
  rate_limit_window_seconds: 'test/integration/auth-abuse.test.ts',
  // 'rateLimitBlockSeconds: the block ends after its time' (a 1 s block, Retry-After 1).
  rate_limit_block_seconds: 'test/integration/auth-abuse.test.ts',
  max_output: 'test/integration/system.test.ts',
  // The GUI rounds amounts to it (3.25 shows 3.2 at 1); node-cli stays exact (cli-display-settings.test.ts).
  display_decimals: 'test/browser/gui.test.ts',
  display_date_format: 'test/integration/cli-display-settings.test.ts',
  analytics_consent_asked: 'test/integration/analytics.test.ts',
  analytics_enabled: 'test/integration/analytics.test.ts',
  analytics_opt_in_at: 'test/integration/analytics.test.ts',
  analytics_url: { file: 'test/integration/analytics.test.ts', mentions: 'NODE_ANALYTICS_URL' },
  analytics_ca_file: { file: 'test/integration/analytics.test.ts', mentions: 'NODE_ANALYTICS_CA_FILE' },
  peer_private_addresses_allowed: 'test/integration/peer-trust.test.ts',
  update_check_url: 'test/integration/system-update-check.test.ts',
  debug_report_url: 'test/integration/system-debug-report.test.ts',
  debug_report_via_tor: 'test/integration/system-debug-report.test.ts',
};

/** The two lists of docs/decisions.md, as the headings of its sections name them. */
const NOT_WIRED = 'Settings not wired yet';
const UNTESTED = 'Settings without a behaviour test yet';

/** The camelCase settings named in the first column of the table under `heading`. */
function listedIn(heading: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8');
  const start = text.indexOf(`## ${heading}\n`);
  if (start < 0) throw new Error(`docs/decisions.md has no section "${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const rows = text.slice(start, end < 0 ? undefined : end).split('\n').filter((l) => /^\| `/.test(l));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
}

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Every .ts file under the source folders, for "does any code read this setting". */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push(readFileSync(path, 'utf8'));
    }
  };
  for (const dir of ['kernel', 'builtin-plugins', 'sdk', 'app']) if (existsSync(join(ROOT, dir))) walk(join(ROOT, dir));
  return out;
}

describe('every setting has a behaviour test, or is listed in docs/decisions.md as lacking one', () => {
  let t: TestNode;
  let declared: string[];
  beforeAll(async () => {
    t = await startTestNode();
    declared = Object.keys((await ok(t, 'GET', '/api/v1/system/settings')).settings).sort();
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('the node declares the whole catalogue: the kernel and every builtin plugin', () => {
    for (const def of [...kernelSettings, ...systemSettings, ...backupSettings, ...analyticsSettings]) expect(declared).toContain(snake(def.key));
  });

  it('each setting is in exactly one place: a behaviour test, not wired yet, or without a behaviour test yet', () => {
    const notWired = listedIn(NOT_WIRED).map(snake);
    const untested = listedIn(UNTESTED).map(snake);
    const placed = [...Object.keys(COVERED), ...notWired, ...untested];
    expect(placed.filter((name, i) => placed.indexOf(name) !== i)).toEqual([]);
    expect([...placed].sort()).toEqual(declared);
  });

  it('each behaviour test exists and names its setting', () => {
    const missing = Object.entries(COVERED).flatMap(([name, entry]) => {
      const { file, mentions } = typeof entry === 'string' ? { file: entry, mentions: null } : entry;
      const path = join(ROOT, file);
      if (!existsSync(path)) return [`${name}: ${file} does not exist`];
      const text = readFileSync(path, 'utf8');
      const named = mentions ? text.includes(mentions) : text.includes(name) || text.includes(camel(name));
      return named ? [] : [`${name}: ${file} does not mention ${mentions ?? name}`];
    });
    expect(missing).toEqual([]);
  });

  it('no code reads a setting that docs/decisions.md lists as not wired', () => {
    const code = sources();
    const read = listedIn(NOT_WIRED).filter((key) => code.some((text) => new RegExp(`\\.get(<[^>]*>)?\\('${key}'\\)`).test(text)));
    expect(read).toEqual([]);
  });
});
