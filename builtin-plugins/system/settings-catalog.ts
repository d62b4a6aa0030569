import { Decimal } from 'decimal.js';
import type { SettingDefinition } from '../../sdk/index.js';
import { normalizeCurrency, sameCurrency } from '../../sdk/currency.js';
import { DEFAULT_DATE_FORMAT, dateFormatProblem } from './display.js';

/**
 * The settings of Document 2 that the kernel does not declare itself (see kernel/settings-catalog.ts), plus
 * the system plugin's own (update check, debug report, analytics consent).
 *
 * Most of them steer features whose plugins do not exist yet (contacts, ledger, routing, chain drops,
 * archival, analytics). They are declared here so that GET/PUT /system/settings and node-cli
 * `changesettings` cover the whole table of Document 2 from day one; when a feature's plugin arrives it takes
 * its settings over (moves the declaration) and this list shrinks. Defaults follow Document 2 first, then the
 * reference node's code; docs/api/system.md records every choice.
 */

/** Largest credit limit: the whole part is a signed 64-bit column (Document 1: "about 9.2 quintillion"). */
const MAX_CREDIT = new Decimal('9223372036854775807');
/** Default update source; an operator (or a test) points `updateCheckUrl` elsewhere. */
export const DEFAULT_UPDATE_CHECK_URL = 'https://api.github.com/repos/wallet-node/wallet-node/releases/latest';

/** Settings an API client may read but not write: the node stamps them itself. */
export const READ_ONLY_SETTINGS: ReadonlySet<string> = new Set(['analyticsOptInAt']);

const decimalsOf = (n: number): number => {
  const text = String(n);
  if (text.includes('e')) return Infinity;
  return text.split('.')[1]?.length ?? 0;
};

const percent = (key: string, def: number, description: string): SettingDefinition => ({
  key,
  type: 'number',
  default: def,
  min: 0,
  max: 100,
  category: 'transactions',
  description,
  validate: (v) => (decimalsOf(v as number) > 8 ? 'must have at most 8 decimals' : null),
});

const int = (key: string, def: number, min: number, max: number, category: string, description: string, env?: string): SettingDefinition => ({
  key, type: 'integer', default: def, min, max, category, description, ...(env ? { env } : {}),
});

const flag = (key: string, def: boolean, category: string, description: string, env?: string): SettingDefinition => ({
  key, type: 'boolean', default: def, category, description, ...(env ? { env } : {}),
});

function httpUrl(value: unknown, allowEmpty: boolean): string | null {
  const text = String(value);
  if (allowEmpty && text === '') return null;
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return null;
  } catch {
    // falls through to the message
  }
  return allowEmpty ? 'must be an http(s) URL or empty' : 'must be an http(s) URL';
}

function currencyList(value: unknown): string | null {
  const items = value as string[];
  if (items.length === 0) return 'must hold at least one currency';
  if (items.length > 100) return 'must hold at most 100 currencies';
  const bad = items.filter((c) => normalizeCurrency(c) === null);
  return bad.length ? `invalid currency code ${bad.join(', ')} (3-10 letters or digits)` : null;
}

/** Stored form: fiat codes upper-cased, other tokens as typed, duplicates (case-insensitive) dropped. */
function normalizeCurrencyList(value: unknown): string[] {
  const out: string[] = [];
  for (const code of value as string[]) {
    const norm = normalizeCurrency(code)!;
    if (!out.some((c) => sameCurrency(c, norm))) out.push(norm);
  }
  return out;
}

export const systemSettings: readonly SettingDefinition[] = [
  // Transactions and fees
  // defaultFee is what this node charges as a relay; maxFee caps what it pays as an originator. They are
  // independent (a node may charge more than it is willing to pay), so no rule ties them.
  percent('defaultFee', 0, 'Routing fee percent this node charges new contacts for relaying'),
  percent('maxFee', 5, 'Highest total route fee, in percent of the amount, this node accepts to pay for a P2P payment'),
  { key: 'minFee', type: 'decimal', default: '0', min: 0, category: 'transactions',
    description: 'Smallest fee this node charges per relay, in the currency of the payment (fee = max(amount x fee% / 100, min_fee))' },
  { key: 'defaultCreditLimit', type: 'decimal', default: '100', min: 0, category: 'transactions',
    description: 'Credit limit extended to a new contact unless given; 0 means contact-only',
    validate: (v) => (new Decimal(v as string).gt(MAX_CREDIT) ? `must be at most ${MAX_CREDIT.toFixed()}` : null) },
  int('directTxExpiration', 0, 0, 604_800, 'transactions', 'Direct transaction delivery timeout in seconds; 0 means none'),
  flag('autoAcceptTransaction', true, 'transactions', 'Send the chosen P2P route at once instead of waiting for approval'),

  // Currencies
  { key: 'allowedCurrencies', type: 'list', default: ['VWL'], category: 'currencies',
    description: 'Currency codes this node transacts in (comma-separated when typed)',
    validate: currencyList, normalize: normalizeCurrencyList },
  { key: 'defaultCurrency', type: 'string', default: 'VWL', category: 'currencies',
    description: 'Currency used when a request names none; must be in allowed_currencies',
    validate: (v) => (normalizeCurrency(String(v)) === null ? 'must be 3-10 letters or digits' : null),
    normalize: (v) => normalizeCurrency(String(v)),
    crossCheck: (v, valueOf) =>
      (valueOf('allowedCurrencies') as string[]).some((c) => sameCurrency(c, v as string))
        ? null
        : `${String(v)} is not in allowed_currencies`,
  },
  flag('autoRejectUnknownCurrency', true, 'currencies', 'Reject contact requests in a currency outside allowed_currencies (false: keep them pending with a warning)'),

  // P2P routing
  int('maxP2pLevel', 6, 1, 10, 'p2p', 'Largest number of hops a route search may take'),
  int('p2pExpiration', 300, 60, 3600, 'p2p', 'P2P routing timeout in seconds (a 120 s delivery window follows)'),
  flag('hopBudgetRandomized', true, 'p2p', 'Randomize the hop budget so relays cannot infer the distance to the origin'),
  { ...int('p2pRateLimitPerMinute', 60, 1, 1_000_000_000, 'rate_limits', 'Peer messages (route requests among them) accepted per minute from one key; ten times that from one client address'), security: true },

  // Contacts
  flag('contactStatusEnabled', true, 'contacts', 'Ping contacts periodically to learn their status and available credit'),
  flag('contactStatusSyncOnPing', true, 'contacts', 'Let a ping start a chain sync when heads differ: after our pings, and at the contact for them (request_sync)'),
  flag('autoAcceptRestoredContact', true, 'contacts', 'Accept a known contact that reappears after a restore without asking'),

  // Chain drops (environment variables of Document 1 override these)
  flag('autoChainDropPropose', true, 'chaindrop', 'Propose a chain drop automatically when a gap is found', 'NODE_AUTO_CHAIN_DROP_PROPOSE'),
  flag('autoChainDropAccept', false, 'chaindrop', 'Accept chain-drop proposals automatically', 'NODE_AUTO_CHAIN_DROP_ACCEPT'),
  flag('autoChainDropAcceptGuard', true, 'chaindrop', 'Refuse auto-accept when the missing transactions include payments owed to this node', 'NODE_AUTO_CHAIN_DROP_ACCEPT_GUARD'),

  // Retention and archival
  int('cleanupHeldTxRetentionDays', 7, 1, 36_500, 'retention', 'Days the routes an originator held for its choice (route candidates) are kept'),
  int('cleanupRp2pRetentionDays', 30, 1, 36_500, 'retention', 'Days route responses are kept'),
  int('paymentRequestsArchiveRetentionDays', 180, 1, 36_500, 'archive', 'Days before resolved payment requests move to the archive'),
  int('paymentRequestsArchiveBatchSize', 500, 1, 100_000, 'archive', 'Payment requests archived per batch'),
  int('transactionsArchiveRetentionDays', 30, 1, 36_500, 'archive', 'Days before settled transactions move to the archive'),
  int('transactionsArchiveBatchSize', 500, 1, 100_000, 'archive', 'Transactions archived per batch'),

  // Display
  int('maxOutput', 5, 0, 10_000, 'display', 'Lines shown by listing commands; 0 means unlimited'),
  int('displayDecimals', 2, 0, 8, 'display', 'Decimals the GUI shows (cut, never rounded); the API and node-cli always show all 8'),
  { key: 'displayDateFormat', type: 'string', default: DEFAULT_DATE_FORMAT, category: 'display',
    description: 'Date format string (UTC): tokens YYYY MM MMM DD HH hh mm ss SSS A, other letters in [brackets]; or unix',
    validate: (v) => dateFormatProblem(String(v)) },

  // Analytics
  flag('analyticsEnabled', false, 'analytics', 'Send one anonymous usage heartbeat per day over Tor', 'NODE_ANALYTICS_ENABLED'),
  flag('analyticsConsentAsked', false, 'analytics', 'Whether the operator has answered the analytics question'),
  { key: 'analyticsOptInAt', type: 'string', default: null, category: 'analytics',
    description: 'When analytics were last switched on (set by the node; read-only)',
    validate: (v) => (Number.isNaN(Date.parse(String(v))) ? 'must be an ISO 8601 timestamp' : null) },

  // Update check
  flag('updateCheckEnabled', true, 'updates', 'Check the release source for a newer version once a day', 'NODE_UPDATE_CHECK_ENABLED'),
  { key: 'updateCheckUrl', type: 'string', default: DEFAULT_UPDATE_CHECK_URL, category: 'updates',
    description: 'Release document fetched by the update check (JSON with version or tag_name)',
    validate: (v) => httpUrl(v, false) },

  // Debug reports
  { key: 'debugReportUrl', type: 'string', default: '', category: 'debug',
    description: 'Where POST /system/debug-report submits; empty means submission is not configured',
    validate: (v) => httpUrl(v, true) },
  flag('debugReportViaTor', true, 'debug', 'Submit debug reports through the Tor SOCKS proxy (always for .onion, never for loopback)'),
];
