/**
 * An example third-party plugin: a small paid service. The operator writes notes (REST, scope paid-notes:write);
 * anyone sees the catalog (`GET /p/paid-notes/catalog`); a contact of the node orders a note
 * (`POST /p/paid-notes/order {note, buyer}`), which sends the buyer's node a payment request through the gateway;
 * once the payment arrives (the public `payment.received` event, or a lookup of its txid) the buyer reads the note
 * with `GET /p/paid-notes/note/<id>?txid=<txid>`. The key-value store holds notes, orders and paid txids.
 * Walk-through: docs/plugins.md, "The example service".
 */
import { ApiError, Reply, definePlugin, type SandboxPluginContext, type Json } from 'wallet-node/sdk/sandbox';

interface Note {
  title: string;
  text: string;
}

interface Order {
  tag: string;
  note: string;
  buyer_hash: string;
  request_id: string;
  amount: string;
  currency: string;
  status: 'requested' | 'paid';
  txid: string | null;
}

const NOTE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** How an order shows in the payment's description, so the payment finds its order: `(order pn-12)`. */
const TAG = /\(order (pn-\d{1,12})\)/;

function noteId(raw: unknown): string {
  if (typeof raw !== 'string' || !NOTE_ID.test(raw)) throw new ApiError('invalid_note', 400, 'a note id is 1-64 of a-z, 0-9 and -', { field: 'note' });
  return raw;
}

/** Decimal amounts compared exactly: both to 8 decimals as integers of text. */
function atLeast(paid: string, price: string): boolean {
  const units = (s: string): bigint => {
    const [whole, frac = ''] = s.split('.');
    return BigInt(whole!) * 100_000_000n + BigInt((frac + '00000000').slice(0, 8));
  };
  return units(paid) >= units(price);
}

async function orderOf(ctx: SandboxPluginContext, tag: string): Promise<Order | null> {
  return (await ctx.store.get(`order:${tag}`)) as Order | null;
}

/** Records a payment against its order when it pays enough, in the order's currency, from the buyer. */
async function settle(ctx: SandboxPluginContext, p: { txid: string; amount: string; currency: string; description: string | null; counterparty_hash: string }): Promise<Order | null> {
  const tag = TAG.exec(p.description ?? '')?.[1];
  if (!tag) return null;
  const order = await orderOf(ctx, tag);
  if (!order || order.status === 'paid') return order;
  if (p.counterparty_hash !== order.buyer_hash || p.currency !== order.currency || !atLeast(p.amount, order.amount)) {
    ctx.log.warn('a payment names an order but does not pay it', { txid: p.txid, order: tag });
    return order;
  }
  const paid: Order = { ...order, status: 'paid', txid: p.txid };
  await ctx.store.set(`order:${tag}`, paid as unknown as Json);
  await ctx.store.set(`paid:${p.txid}`, tag);
  ctx.log.info('order paid', { order: tag, txid: p.txid });
  return paid;
}

export default definePlugin({
  setup(ctx) {
    ctx.events.subscribe('payment.received', async (payload) => {
      await settle(ctx, payload as unknown as Parameters<typeof settle>[1]);
    });

    // ---- the operator (HMAC-signed REST)

    ctx.routes.plugin({
      method: 'PUT',
      path: 'notes/:id',
      scope: 'paid-notes:write',
      handler: async (req) => {
        const id = noteId(req.params.id);
        const body = req.body as { title?: unknown; text?: unknown };
        if (typeof body.title !== 'string' || body.title.length === 0 || body.title.length > 120) {
          throw new ApiError('invalid_title', 400, 'title is 1-120 characters', { field: 'title' });
        }
        if (typeof body.text !== 'string' || body.text.length === 0 || body.text.length > 10_000) {
          throw new ApiError('invalid_text', 400, 'text is 1-10000 characters', { field: 'text' });
        }
        await ctx.store.set(`note:${id}`, { title: body.title, text: body.text });
        return new Reply({ id }, 201, `Note ${id} saved`);
      },
    });

    ctx.routes.plugin({
      method: 'GET',
      path: 'orders',
      scope: 'paid-notes:read',
      handler: async () => {
        const orders: Order[] = [];
        for (const key of await ctx.store.list('order:')) {
          const order = (await ctx.store.get(key)) as Order | null;
          if (order) orders.push(order);
        }
        return { orders };
      },
    });

    // ---- the public (no credential; rate and size limits in plugin.json, enforced by the node)

    ctx.routes.public({
      method: 'GET',
      path: 'catalog',
      handler: async () => {
        const notes: { id: string; title: string }[] = [];
        for (const key of await ctx.store.list('note:')) {
          const note = (await ctx.store.get(key)) as Note | null;
          if (note) notes.push({ id: key.slice('note:'.length), title: note.title });
        }
        return { notes, price: await ctx.settings.get('price'), currency: await ctx.settings.get('currency') };
      },
    });

    ctx.routes.public({
      method: 'POST',
      path: 'order',
      handler: async (req) => {
        const body = req.body as { note?: unknown; buyer?: unknown };
        const id = noteId(body.note);
        const note = (await ctx.store.get(`note:${id}`)) as Note | null;
        if (!note) throw new ApiError('note_not_found', 404, `No note ${id}`);
        if (typeof body.buyer !== 'string' || !/^[0-9a-f]{64}$/.test(body.buyer)) {
          throw new ApiError('invalid_buyer', 400, "buyer is the key hash of the buyer's node, a contact of this node", { field: 'buyer' });
        }
        // Calls into a plugin run one at a time, so the number is taken once the request exists: a refused order
        // (a buyer who is no contact) uses none.
        const seq = (((await ctx.store.get('seq')) as number | null) ?? 0) + 1;
        const tag = `pn-${seq}`;
        const amount = (await ctx.settings.get('price')) as string;
        const currency = (await ctx.settings.get('currency')) as string;
        // The buyer's node gets a payment request; approving it pays, with this description on the payment.
        const request = await ctx.gateway.call('payment_requests.create', {
          contact: body.buyer,
          amount,
          currency,
          description: `${note.title.slice(0, 100)} (order ${tag})`,
        });
        await ctx.store.set('seq', seq);
        const order: Order = { tag, note: id, buyer_hash: request.contact_hash, request_id: request.request_id, amount: request.amount, currency: request.currency, status: 'requested', txid: null };
        await ctx.store.set(`order:${tag}`, order as unknown as Json);
        return new Reply({ order: tag, request_id: request.request_id, amount: request.amount, currency: request.currency }, 201, 'Approve the payment request on your node, then read the note with its txid');
      },
    });

    ctx.routes.public({
      method: 'GET',
      path: 'note/:id',
      handler: async (req) => {
        const id = noteId(req.params.id);
        const txid = req.query.txid;
        if (typeof txid !== 'string' || !/^[0-9a-f]{16,128}$/.test(txid)) throw new ApiError('payment_required', 402, 'Pay for the note, then send ?txid=<the payment>');
        let tag = (await ctx.store.get(`paid:${txid}`)) as string | null;
        if (!tag) {
          // The event may have come while the plugin was not running: ask the ledger.
          const tx = await ctx.gateway.call('transactions.lookup', { txid });
          if (tx && tx.direction === 'received' && tx.status === 'completed') tag = (await settle(ctx, tx))?.txid === txid ? TAG.exec(tx.description ?? '')![1]! : null;
        }
        const order = tag ? await orderOf(ctx, tag) : null;
        if (!order || order.note !== id || order.status !== 'paid') throw new ApiError('payment_required', 402, `No completed payment ${txid} for note ${id}`);
        const note = (await ctx.store.get(`note:${id}`)) as Note | null;
        if (!note) throw new ApiError('note_not_found', 404, `No note ${id}`);
        return { id, title: note.title, text: note.text, order: order.tag };
      },
    });
  },
});
