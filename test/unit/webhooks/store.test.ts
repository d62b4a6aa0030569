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

  it('the webhooks are kept between writes: an added or removed one is seen at once, one added in a rolled-back transaction never', () => {
    const db = migratedDatabase(migrations);
    const store = new WebhookStore(db);
    const hook = (id: string) => ({ id, url: `https://example.com/${id}`, events: '["payment.received"]', secret: 's', created_at: 0 });
    expect(store.hooks()).toEqual([]);
    store.addHook(hook('a'));
    expect(store.hooks().map((h) => h.id)).toEqual(['a']);
    expect(() =>
      db.transaction(() => {
        store.addHook(hook('b'));
        expect(store.hooks().map((h) => h.id)).toEqual(['a', 'b']);
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(store.hooks().map((h) => h.id)).toEqual(['a']);
    expect(store.removeHook('a')).toBe(true);
    expect(store.hooks()).toEqual([]);
    expect(Object.isFrozen(store.hooks())).toBe(true);
  });

  it("an event's subscribers are kept per event and follow every write", () => {
    const store = new WebhookStore(migratedDatabase(migrations));
    const hook = (id: string, events: string[]) => ({ id, url: `https://example.com/${id}`, events: JSON.stringify(events), secret: 's', created_at: 0 });
    const ids = (event: string) => store.subscribers(event).map((h) => h.id);
    store.addHook(hook('a', ['payment.received']));
    store.addHook(hook('b', ['payment.received', 'payment.sent']));
    expect(ids('payment.received')).toEqual(['a', 'b']);
    expect(ids('payment.sent')).toEqual(['b']);
    expect(ids('contact.request')).toEqual([]);
    expect(store.subscribers('payment.sent')).toBe(store.subscribers('payment.sent'));
    store.addHook(hook('c', ['contact.request']));
    expect(ids('contact.request')).toEqual(['c']);
    store.removeHook('b');
    expect(ids('payment.received')).toEqual(['a']);
    expect(ids('payment.sent')).toEqual([]);
  });
});
