/**
 * A chain's checks on a long chain (prints figures, asserts nothing): verify-chain's full audit (links, totals, every
 * row's content and both Ed25519 signatures) against the links and totals alone (what the node's repairs need: chain
 * syncs, tx drops), and against the check of the chain's line that pings, the check after payments and archival ask
 * (read from where its last check ended). All run on the ledger's store, in this process, over BENCH_CHAIN_ROWS
 * (50,000) settled rows signed by two real identities, alternating directions; each round settles 100 more. The links
 * and line checks are synchronous (their time is how long they hold the node's event loop); the full audit checks a
 * slice of rows per turn, and the longest turn is printed.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { auditChain, auditLinks } from '../../builtin-plugins/ledger/audit.js';
import { buildContent, deriveTxid, MEMO_STANDARD, newSalt, signedBytes } from '../../builtin-plugins/ledger/content.js';
import type { LedgerCore } from '../../builtin-plugins/ledger/core.js';
import { LedgerStore } from '../../builtin-plugins/ledger/store.js';
import { migrations } from '../../builtin-plugins/ledger/store/tables.js';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { Identity } from '../../kernel/identity.js';

const CURRENCY = 'VWL';

interface Seeded {
  core: LedgerCore;
  contactHash: string;
  /** Settles `rows` more payments at the end of the chain. */
  extend(rows: number): void;
}

function seededChain(rows: number): Seeded {
  const db = new Database(':memory:');
  for (const m of migrations) {
    if (typeof m.up === 'string') db.exec(m.up);
    else m.up(db);
  }
  const store = new LedgerStore(db);
  const own = Identity.fromMnemonic(generateMnemonic());
  const contact = Identity.fromMnemonic(generateMnemonic());
  const now = Date.now();
  let prev: string | null = null;
  let settled = 0;
  const extend = db.transaction((count: number) => {
    for (let end = settled + count; settled < end; settled++) {
      const i = settled;
      const [from, to] = i % 2 === 0 ? [own, contact] : [contact, own];
      const amount = BigInt(100 + (i % 997));
      const fields = { from: from.pubkeyHash, to: to.pubkeyHash, currency: CURRENCY, time: (now + i) * 1000, salt: newSalt() };
      const txid = deriveTxid({ ...fields, amount });
      const content = buildContent({ txid, prev, ...fields, amount: amount.toString(), memo: MEMO_STANDARD });
      const bytes = signedBytes(content);
      const row = store.transactions.insert({
        txid,
        type: from === own ? 'sent' : 'received',
        status: 'pending',
        contactHash: contact.pubkeyHash,
        counterpartyPublicKey: contact.publicKey.toString('base64url'),
        fromHash: fields.from,
        toHash: fields.to,
        amount,
        currency: CURRENCY,
        timeMicros: fields.time,
        salt: fields.salt,
        prevTxid: prev,
        description: null,
        expiresAt: null,
        content,
        senderSignature: from.sign(bytes).toString('base64url'),
        recipientSignature: to.sign(bytes).toString('base64url'),
        senderAddress: null,
        receiverAddress: null,
        refundOf: null,
        now,
      });
      store.chains.complete(row, now);
      prev = txid;
    }
  });
  extend(rows);
  return { core: { store, ctx: { identity: own } } as unknown as LedgerCore, contactHash: contact.pubkeyHash, extend: (n) => void extend(n) };
}

const timed = async <T>(run: () => T | Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
};

export async function benchChainChecks(rows: number): Promise<void> {
  const seeding = await timed(() => seededChain(rows));
  const { core, contactHash, extend } = seeding.value;
  console.log(`  ${rows.toLocaleString('en-US')} settled rows signed and stored in ${(seeding.ms / 1000).toFixed(1)} s`);
  // The first check of a chain's line after a start reads it whole; later ones read from where the last ended.
  const firstLine = await timed(() => core.store.chains.line(contactHash, CURRENCY));
  console.log(`  the line's first check (the chain whole, as after a start): ${firstLine.ms.toFixed(0)} ms${firstLine.value.linear ? '' : ' NOT LINEAR'}`);
  for (let round = 1; round <= 3; round++) {
    extend(100);
    const line = await timed(() => core.store.chains.line(contactHash, CURRENCY));
    // What else a ping reads of the chain: the currencies there are chains in, and the head of each.
    const ping = await timed(() => core.store.chains.chainCurrencies(contactHash).map((c) => core.store.chains.head(contactHash, c)));
    // The longest the full audit keeps the event loop from anything else: it checks a slice of rows per turn.
    // Its first turn reads the rows and the stored totals together; it returns at its first yield.
    const delay = monitorEventLoopDelay({ resolution: 5 });
    let firstTurn = 0;
    const full = await timed(() => {
      const started = performance.now();
      const audit = auditChain(core, contactHash, CURRENCY);
      firstTurn = performance.now() - started;
      delay.enable();
      return audit;
    });
    delay.disable();
    const links = await timed(() => auditLinks(core, contactHash, CURRENCY));
    const total = rows + round * 100;
    const agree = line.value.linear && full.value.ok && links.value.ok && full.value.settled === total && links.value.settled === total;
    console.log(
      `  round ${round} (${total.toLocaleString('en-US')} rows): verify-chain ${full.ms.toFixed(0)} ms (the event loop held ${firstTurn.toFixed(0)} ms reading, then at most ${(delay.max / 1e6).toFixed(0)} ms at a time), ` +
        `links and totals ${links.ms.toFixed(0)} ms (${(full.ms / links.ms).toFixed(0)}x less, ${((links.ms / total) * 1000).toFixed(1)} µs a row), ` +
        `the line after 100 more settled ${line.ms.toFixed(2)} ms (${(links.ms / line.ms).toFixed(0)}x less than links), a ping's currencies and heads ${ping.ms.toFixed(2)} ms${agree ? '' : ' MISMATCH'}`,
    );
  }
}
