/**
 * Coalesces peer messages bound for the same node into one HTTP exchange.
 *
 * Every message is still its own signed and sealed envelope with its own reply; only the HTTP request carries
 * several. Between two busy nodes the HTTP and TLS work per exchange costs about as much as the cryptography per
 * message, so sharing it is what lets a pair of nodes pass a few thousand messages a second on two cores.
 * Messages posted in the same turn of the event loop leave together; a batch is capped by count and size so a slow
 * handler holds few others back. A quiet node (no exchange of its own in flight) does not wait for the turn to end:
 * what it posted leaves once the code that posted it is done (a microtask later), since each hop of a routed payment
 * pays that wait again.
 */
import type { NodeAddresses } from '../../sdk/index.js';

/** Most envelopes in one exchange; the receiver refuses more. */
export const MAX_BATCH_ENVELOPES = 64;
/** Envelopes leave in batches of at most this many: smaller batches keep several exchanges in flight. */
const SEND_BATCH_ENVELOPES = 8;
/** Bytes of envelopes in one batch (the receiver accepts 1 MB per exchange). */
const SEND_BATCH_BYTES = 256 * 1024;

/** One envelope's answer: the HTTP status it would have had alone and its parsed body (null if not JSON). */
export interface PostAnswer {
  status: number;
  body: unknown;
  address: string;
}

/** Sends one HTTP exchange to a peer; the batcher does not know about transports. */
export type PostExchange = (addresses: Partial<NodeAddresses>, body: string) => Promise<{ status: number; body: string; address: string }>;

interface Pending {
  text: string;
  resolve: (answer: PostAnswer) => void;
  reject: (err: unknown) => void;
}

const parseOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** One key per set of addresses (the order of transports does not matter, the addresses do). */
export const addressKey = (a: Partial<NodeAddresses>): string => `${a.tor ?? ''}|${a.https ?? ''}|${a.http ?? ''}`;

export class MessageBatcher {
  readonly #queues = new Map<string, { addresses: Partial<NodeAddresses>; items: Pending[] }>();
  #scheduled = false;
  /** Exchanges sent and not answered yet. */
  #inFlight = 0;

  constructor(private readonly exchange: PostExchange) {}

  /** Posts one serialized envelope; resolves with its own answer whether it travelled alone or in a batch. */
  post(addresses: Partial<NodeAddresses>, envelopeText: string): Promise<PostAnswer> {
    return new Promise<PostAnswer>((resolve, reject) => {
      const key = addressKey(addresses);
      let queue = this.#queues.get(key);
      if (!queue) {
        queue = { addresses, items: [] };
        this.#queues.set(key, queue);
      }
      queue.items.push({ text: envelopeText, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        if (this.#inFlight === 0) queueMicrotask(() => this.#flush());
        else setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    for (const { addresses, items } of queues) {
      let batch: Pending[] = [];
      let bytes = 0;
      for (const item of items) {
        if (batch.length > 0 && (batch.length >= SEND_BATCH_ENVELOPES || bytes + item.text.length > SEND_BATCH_BYTES)) {
          void this.#send(addresses, batch);
          batch = [];
          bytes = 0;
        }
        batch.push(item);
        bytes += item.text.length;
      }
      void this.#send(addresses, batch);
    }
  }

  async #send(addresses: Partial<NodeAddresses>, batch: Pending[]): Promise<void> {
    this.#inFlight++;
    try {
      if (batch.length === 1) {
        const res = await this.exchange(addresses, batch[0]!.text);
        batch[0]!.resolve({ status: res.status, body: parseOrNull(res.body), address: res.address });
        return;
      }
      const res = await this.exchange(addresses, `[${batch.map((p) => p.text).join(',')}]`);
      const results = res.status === 200 ? parseOrNull(res.body) : null;
      batch.forEach((pending, i) => {
        const one = Array.isArray(results) ? (results[i] as { status?: unknown; body?: unknown } | undefined) : undefined;
        if (one && typeof one.status === 'number') pending.resolve({ status: one.status, body: one.body ?? null, address: res.address });
        else if (res.status !== 200) pending.resolve({ status: res.status, body: parseOrNull(res.body), address: res.address });
        else pending.resolve({ status: 502, body: { error: { code: 'invalid_reply', message: 'the batch answer has no result for this message' } }, address: res.address });
      });
    } catch (err) {
      for (const pending of batch) pending.reject(err);
    } finally {
      this.#inFlight--;
    }
  }
}
