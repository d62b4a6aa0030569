/**
 * Per-wallet rate limits of node-cli (Document 2, "Command-line rate limits"). Each bucket keeps the times of its
 * recent uses; a use over the limit blocks the bucket for the rule's block time. The state lives in
 * `cli-rate.json` next to `cli.json` (mode 600), keyed by node id and bucket, so consecutive runs count.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../fs-atomic.js';
/** "All others" of Document 2. */
export const DEFAULT_RATE_RULE = { max: 100, windowSeconds: 60, blockSeconds: 300 };
export const emptyBucket = () => ({ hits: [], blocked_until: null });
/** One use of a bucket at `now` (pure: the caller persists the returned state). */
export function consume(previous, rule, now) {
    const windowMs = rule.windowSeconds * 1000;
    const state = {
        hits: (previous?.hits ?? []).filter((t) => t > now - windowMs && t <= now),
        blocked_until: previous?.blocked_until != null && previous.blocked_until > now ? previous.blocked_until : null,
    };
    if (state.blocked_until !== null) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((state.blocked_until - now) / 1000)), state };
    }
    if (state.hits.length >= rule.max) {
        if (rule.blockSeconds > 0) {
            state.blocked_until = now + rule.blockSeconds * 1000;
            return { allowed: false, retryAfterSeconds: rule.blockSeconds, state };
        }
        const freeAt = state.hits[state.hits.length - rule.max] + windowMs;
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)), state };
    }
    state.hits.push(now);
    return { allowed: true, state };
}
/** Whether a bucket state still matters at `now` (states that do not are dropped from the file). */
export function isLive(state, rule, now) {
    return (state.blocked_until !== null && state.blocked_until > now) || state.hits.some((t) => t > now - rule.windowSeconds * 1000);
}
const emptyFile = () => ({ version: 1, nodes: {}, buckets: {} });
function parseFile(text) {
    try {
        const raw = JSON.parse(text);
        if (raw && raw.version === 1 && typeof raw.nodes === 'object' && typeof raw.buckets === 'object')
            return raw;
    }
    catch {
        // a damaged file starts over: it only holds counters
    }
    return emptyFile();
}
const LOCK_STALE_MS = 5_000;
const LOCK_WAIT_MS = 2_000;
/**
 * The persisted store. Each read-modify-write happens under a lock file (exclusive create), so two runs at the
 * same moment both count. The lock is given up after a short wait: the limiter must never hang the CLI.
 */
export class RateStore {
    file;
    clock;
    constructor(file, clock = Date.now) {
        this.file = file;
        this.clock = clock;
    }
    read() {
        return existsSync(this.file) ? parseFile(readFileSync(this.file, 'utf8')) : emptyFile();
    }
    /** Runs `fn` on the current content under the lock and writes what it returns (unless null). */
    async update(fn) {
        mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
        const release = await this.#lock();
        try {
            const { file, result } = fn(this.read());
            if (file)
                writeFileAtomic(this.file, JSON.stringify(file) + '\n', 0o600);
            return result;
        }
        finally {
            release();
        }
    }
    /** One use of `bucket` for `nodeId`; drops expired buckets of every node on the way. */
    consume(nodeId, bucket, rule, rules) {
        return this.update((file) => {
            const now = this.clock();
            const perNode = file.buckets[nodeId] ?? {};
            const decision = consume(perNode[bucket], rule, now);
            perNode[bucket] = decision.state;
            file.buckets[nodeId] = perNode;
            for (const [node, buckets] of Object.entries(file.buckets)) {
                for (const [name, state] of Object.entries(buckets))
                    if (!isLive(state, rules(name), now))
                        delete buckets[name];
                if (Object.keys(buckets).length === 0)
                    delete file.buckets[node];
            }
            return { file, result: decision };
        });
    }
    knownNode(keyId) {
        return this.read().nodes[keyId] ?? null;
    }
    rememberNode(keyId, nodeId) {
        return this.update((file) => {
            if (file.nodes[keyId] === nodeId)
                return { file: null, result: undefined };
            file.nodes[keyId] = nodeId;
            return { file, result: undefined };
        });
    }
    async #lock() {
        const lock = `${this.file}.lock`;
        const deadline = Date.now() + LOCK_WAIT_MS;
        for (;;) {
            try {
                closeSync(openSync(lock, 'wx', 0o600));
                return () => rmSync(lock, { force: true });
            }
            catch (err) {
                if (err.code !== 'EEXIST')
                    throw err;
            }
            try {
                if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) {
                    rmSync(lock, { force: true });
                    continue;
                }
            }
            catch {
                continue; // vanished meanwhile
            }
            if (Date.now() > deadline)
                return () => undefined; // proceed unlocked rather than hang
            await new Promise((r) => setTimeout(r, 15));
        }
    }
}
export function rateLimitedMessage(seconds) {
    return `Rate limit exceeded. Please try again in ${seconds} seconds.`;
}
//# sourceMappingURL=rate-limit.js.map