import { describe, expect, it } from 'vitest';
import { WebhookStore, migrations } from '../../../builtin-plugins/webhooks/store.js';
import { migratedDatabase } from '../../support/db.js';

describe('webhook deliveries store', () => {
  it('prunes delivered rows older than the cut-off; pending and dead rows stay', () => {
    const store = new WebhookStore(migratedDatabase(migrations));
    store.addHook({ id: 'h', url: 'https://example.com/', events: '["payment.received"]', secret: 's', created_at: 0 });
    for (const id of ['old', 'new', 'pending', 'dead']) store.addDelivery(id, 'h', 'payment.received', '{}', 1, 1);
    store.update('old', 'delivered', 1, 1, null, 100);
    store.update('new', 'delivered', 1, 1, null, 300);
    store.update('dead', 'dead', 5, 1, 'unreachable', null);
    expect(store.prune(200)).toBe(1);
    expect(store.delivery('old')).toBeNull();
    expect(['new', 'pending', 'dead'].map((id) => store.delivery(id)?.status)).toEqual(['delivered', 'pending', 'dead']);
    expect(store.counts('h')).toEqual({ pending: 1, delivered: 1, dead: 1, last_error: 'unreachable' });
  });
});
