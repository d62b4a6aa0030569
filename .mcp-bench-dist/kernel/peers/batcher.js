/** Most envelopes in one exchange; the receiver refuses more. */
export const MAX_BATCH_ENVELOPES = 64;
/** Envelopes leave in batches of at most this many: smaller batches keep several exchanges in flight. */
const SEND_BATCH_ENVELOPES = 8;
/** Bytes of envelopes in one batch (the receiver accepts 1 MB per exchange). */
const SEND_BATCH_BYTES = 256 * 1024;
const parseOrNull = (text) => {
    try {
        return JSON.parse(text);
    }
    catch {
        return null;
    }
};
export class MessageBatcher {
    exchange;
    #queues = new Map();
    #scheduled = false;
    constructor(exchange) {
        this.exchange = exchange;
    }
    /** Posts one serialized envelope; resolves with its own answer whether it travelled alone or in a batch. */
    post(addresses, envelopeText) {
        return new Promise((resolve, reject) => {
            const key = `${addresses.tor ?? ''}|${addresses.https ?? ''}|${addresses.http ?? ''}`;
            let queue = this.#queues.get(key);
            if (!queue) {
                queue = { addresses, items: [] };
                this.#queues.set(key, queue);
            }
            queue.items.push({ text: envelopeText, resolve, reject });
            if (!this.#scheduled) {
                this.#scheduled = true;
                setImmediate(() => this.#flush());
            }
        });
    }
    #flush() {
        this.#scheduled = false;
        const queues = [...this.#queues.values()];
        this.#queues.clear();
        for (const { addresses, items } of queues) {
            let batch = [];
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
    async #send(addresses, batch) {
        try {
            if (batch.length === 1) {
                const res = await this.exchange(addresses, batch[0].text);
                batch[0].resolve({ status: res.status, body: parseOrNull(res.body), address: res.address });
                return;
            }
            const res = await this.exchange(addresses, `[${batch.map((p) => p.text).join(',')}]`);
            const results = res.status === 200 ? parseOrNull(res.body) : null;
            batch.forEach((pending, i) => {
                const one = Array.isArray(results) ? results[i] : undefined;
                if (one && typeof one.status === 'number')
                    pending.resolve({ status: one.status, body: one.body ?? null, address: res.address });
                else if (res.status !== 200)
                    pending.resolve({ status: res.status, body: parseOrNull(res.body), address: res.address });
                else
                    pending.resolve({ status: 502, body: { error: { code: 'invalid_reply', message: 'the batch answer has no result for this message' } }, address: res.address });
            });
        }
        catch (err) {
            for (const pending of batch)
                pending.reject(err);
        }
    }
}
//# sourceMappingURL=batcher.js.map