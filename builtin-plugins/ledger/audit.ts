/**
 * The audit of a bilateral chain as this node holds it (verify-chain): every settled row checked end to end, without
 * trusting any column of the database that a signature does not cover. The node's own checks (after payments, pings,
 * before archival and tx drops) need only the links and totals (`auditLinks`): a full audit of a chain of 66,000 rows
 * held its node's event loop for about 15 s, which the node's peers met as timeouts.
 *
 *   - links: each settled row's `prev` is a settled row of the same pair and currency (else a gap: the missing txid,
 *     the row it breaks, the row before the gap in chain order); two rows on one `prev` are a fork;
 *   - content: the signed content parses (shape, canonical form, txid derivation) and says what the row says
 *     (txid, prev, sender, recipient, amount, currency);
 *   - signatures: the sender's and the recipient's Ed25519 signatures over the content, under this node's key and
 *     the contact's (the key stored with the row, which must hash to the contact's pubkey_hash);
 *   - balances: the stored totals equal the sums of the settled rows (and of the legs completed here awaiting their
 *     chain entries).
 */
import { createHash } from 'node:crypto';
import { fromParts, type Minor } from '../../sdk/money.js';
import { ContentError, parseContent, signedBytes } from './content.js';
import type { ChainAudit, ChainGap, ChainLinks, RowFinding } from './api.js';
import { checkpointStatus } from './archive-checkpoint.js';
import type { LedgerCore } from './core.js';
import { AUDIT_CHUNK, type AuditRow, type ChainPlace } from './store/chains.js';

const keyHash = (raw: Buffer): string => createHash('sha256').update(raw).digest('hex');

/**
 * The full audit: links and totals, and each row's content and signatures (two Ed25519 checks a row). The links and
 * the stored totals are read together in one turn, so payments settling meanwhile cannot make them disagree; then the
 * rows are read and checked a chunk per turn of the event loop (AUDIT_CHUNK), so that the node goes on serving and a
 * chain of any length is never held in memory whole. Each row is checked against its own columns, read with it.
 */
export async function auditChain(core: LedgerCore, contactHash: string, currency: string): Promise<ChainAudit> {
  const links = auditLinks(core, contactHash, currency);
  // A row stored before the contact's key was known borrows it from another row of the pair (checked against the hash).
  const contactKey = core.store.chains.storedKeys(contactHash, currency).find((k) => keyHash(Buffer.from(k, 'base64url')) === contactHash) ?? null;
  const findings: RowFinding[] = [];
  for (let after: ChainPlace | null = null; ; ) {
    const rows = core.store.chains.auditChunk(contactHash, currency, after);
    for (const row of rows) findings.push(...checkRow(core, row, fromParts(row.amountWhole, row.amountFrac), contactHash, currency, contactKey));
    if (rows.length < AUDIT_CHUNK) break;
    after = rows[rows.length - 1]!;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { ...links, rows: findings, ok: links.ok && findings.length === 0 };
}

/** The links and totals alone, from the columns that carry them (what the node's own checks need). */
export function auditLinks(core: LedgerCore, contactHash: string, currency: string): ChainLinks {
  const rows = core.store.chains.linkRows(contactHash, currency);
  const own = core.ctx.identity;
  const settled = new Set(rows.map((r) => r.txid));
  const gaps: ChainGap[] = [];
  const byPrev = new Map<string, string[]>();
  const computed = { received: 0n, sent: 0n };
  let before: string | null = null;
  const rowBefore = new Map<string, string | null>();
  for (const row of rows) {
    rowBefore.set(row.txid, before);
    if (row.prevTxid !== null && !settled.has(row.prevTxid)) gaps.push({ missing: row.prevTxid, broken: row.txid, before });
    const siblings = byPrev.get(row.prevTxid ?? '') ?? [];
    siblings.push(row.txid);
    byPrev.set(row.prevTxid ?? '', siblings);
    const amount = fromParts(row.amountWhole, row.amountFrac);
    if (row.toHash === own.pubkeyHash) computed.received += amount;
    else computed.sent += amount;
    before = row.txid;
  }
  // Legs this node completed when it fulfilled them count in the totals before their chain entries place them.
  computed.received += core.store.balances.settledAwaitingEntry(contactHash, currency);
  const stored = core.store.balances.of(contactHash, currency);
  const balance = stored.received !== computed.received || stored.sent !== computed.sent ? { stored: { received: stored.received, sent: stored.sent }, computed } : null;
  const forks = [...byPrev.entries()].filter(([, txids]) => txids.length > 1);
  const forkRelinks = forks.flatMap(([shared, txids]) =>
    [...txids]
      .sort()
      .slice(1)
      .map((txid) => ({ shared: shared || null, txid, before: rowBefore.get(txid) ?? null })),
  );
  const checkpoint = checkpointStatus(core, contactHash, currency);
  return {
    contactHash,
    currency,
    settled: rows.length,
    gaps,
    forks: forks.map(([, txids]) => txids),
    forkRelinks,
    balance,
    checkpoint,
    ok: gaps.length === 0 && forks.length === 0 && balance === null && checkpoint !== 'mismatch',
  };
}

function checkRow(core: LedgerCore, row: AuditRow, amount: Minor, contactHash: string, currency: string, contactKey: string | null): RowFinding[] {
  const finding = (problem: RowFinding['problem'], detail: string): RowFinding[] => [{ txid: row.txid, problem, detail }];
  if (row.content === null) return finding('content', 'a settled row without its signed content');
  let content: ReturnType<typeof parseContent>;
  try {
    content = parseContent(row.content);
  } catch (err) {
    return finding('content', err instanceof ContentError ? err.message : String(err));
  }
  const own = core.ctx.identity;
  const mismatch =
    content.txid !== row.txid ? 'txid'
    : content.prev !== row.prevTxid ? 'previous txid'
    : content.from !== row.fromHash || content.to !== row.toHash ? 'sender or recipient'
    : ![content.from, content.to].includes(own.pubkeyHash) || ![content.from, content.to].includes(contactHash) ? 'parties'
    : content.amountMinor !== amount ? 'amount'
    : content.currency.toLowerCase() !== currency.toLowerCase() ? 'currency'
    : null;
  if (mismatch) return finding('content', `the row's ${mismatch} is not what its signed content says`);
  const stored = row.counterpartyPublicKey ?? contactKey;
  const theirs = stored === null ? null : Buffer.from(stored, 'base64url');
  if (!theirs || keyHash(theirs) !== contactHash) return finding('key', "no key of the contact that hashes to its pubkey_hash");
  const bytes = signedBytes(row.content);
  const senderKey = content.from === own.pubkeyHash ? own.publicKey : theirs;
  const recipientKey = content.to === own.pubkeyHash ? own.publicKey : theirs;
  const verifies = (key: Buffer, signature: string | null): boolean =>
    signature !== null && /^[A-Za-z0-9_-]{86}$/.test(signature) && own.verify(key, bytes, Buffer.from(signature, 'base64url'));
  const out: RowFinding[] = [];
  if (!verifies(senderKey, row.senderSignature)) out.push({ txid: row.txid, problem: 'sender_signature', detail: 'the sender signature does not verify' });
  if (!verifies(recipientKey, row.recipientSignature)) out.push({ txid: row.txid, problem: 'recipient_signature', detail: 'the recipient signature does not verify' });
  return out;
}
