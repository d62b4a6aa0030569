import type { GaugeSample, PluginContext } from '../../sdk/index.js';
import type { ContactsCore } from './core.js';
import type { ContactStore } from './store.js';

/** The most used lines only: one series per contact and currency would grow with the network. */
const MAX_LINES = 50;
/** Enough of the key hash to tell contacts apart on a dashboard; a name is the peer's own text, a hash is not. */
const CONTACT_LABEL_CHARS = 16;

/**
 * Per line: the share of the credit this node extends that the contact uses (what it owes, held amounts included),
 * for the MAX_LINES most used accepted lines, read at each scrape.
 */
export function registerLineMetrics(ctx: PluginContext, store: ContactStore, core: ContactsCore): void {
  ctx.metrics.gauge(
    {
      name: 'contact_line_utilisation_ratio',
      help: `Share of the credit extended to a contact that it uses, by contact (key hash prefix) and currency; the ${MAX_LINES} most used lines`,
      labels: ['contact', 'currency'],
      maxSeries: MAX_LINES,
    },
    () => {
      const lines: GaugeSample[] = [];
      for (const c of store.acceptedWithKeys()) {
        for (const row of store.currencies(c.id)) {
          const limit = row.credit_limit ?? 0n;
          if (row.status !== 'accepted' || limit <= 0n) continue;
          const used = limit - core.availableFor(c.pubkey_hash, row);
          lines.push({ labels: { contact: c.pubkey_hash!.slice(0, CONTACT_LABEL_CHARS), currency: row.currency }, value: Number(used) / Number(limit) });
        }
      }
      return lines.sort((a, b) => b.value - a.value);
    },
  );
}
