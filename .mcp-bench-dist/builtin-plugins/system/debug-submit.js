import { ApiError } from '../../sdk/index.js';
import { fitReport } from './debug-report.js';
import { isLoopback, isOnion, outbound, OutboundError } from './outbound.js';
import { scrub } from './scrub.js';
/**
 * POST /system/debug-report: scrub, fit, submit, count.
 *
 * Transport rule: a `.onion` destination always goes through the Tor SOCKS proxy; a loopback destination
 * (localhost, 127.0.0.0/8, ::1) always goes direct (Tor cannot reach it); anything else goes through Tor
 * while `debugReportViaTor` is on (the default), direct otherwise.
 *
 * At most three successful submissions per UTC day, counted in the plugin's table so a restart does not
 * reset them; a failed attempt does not use up a slot.
 */
export const DAILY_SUBMISSIONS = 3;
const SUBMIT_TIMEOUT_MS = 60_000;
const MAX_REPLY_BYTES = 64 * 1024;
const COUNTER_KEY = 'debug_report_submissions';
const utcDay = (ms) => new Date(ms).toISOString().slice(0, 10);
const failed = (reason) => new ApiError('debug_report_submit_failed', 502, `Debug report submission failed: ${reason}. You can download it with GET /api/v1/system/debug-report instead.`);
export class DebugReportSubmitter {
    deps;
    constructor(deps) {
        this.deps = deps;
    }
    #counter(now) {
        const saved = this.deps.store.read(COUNTER_KEY);
        return saved && saved.day === utcDay(now) ? saved : { day: utcDay(now), count: 0 };
    }
    /** Takes a slot before sending, so concurrent submissions cannot exceed the cap; returns it on failure. */
    #reserve(now) {
        const counter = this.#counter(now);
        if (counter.count >= DAILY_SUBMISSIONS) {
            const next = new Date(`${counter.day}T00:00:00.000Z`).getTime() + 86_400_000;
            throw new ApiError('debug_report_limit_reached', 429, `At most ${DAILY_SUBMISSIONS} debug reports can be submitted per day; try again after ${new Date(next).toISOString()} or download the report with GET /api/v1/system/debug-report`, { limit: DAILY_SUBMISSIONS, resets_at: new Date(next).toISOString() });
        }
        this.deps.store.write(COUNTER_KEY, { day: counter.day, count: counter.count + 1 });
    }
    #release(now) {
        const counter = this.#counter(now);
        if (counter.count > 0)
            this.deps.store.write(COUNTER_KEY, { day: counter.day, count: counter.count - 1 });
    }
    async submit(report, description) {
        const target = this.deps.settings.get('debugReportUrl');
        if (!target)
            throw failed('no destination is configured (set the debug_report_url setting)');
        const url = new URL(target);
        const viaTor = isOnion(url) || (!isLoopback(url) && this.deps.settings.get('debugReportViaTor'));
        const wrap = (r) => ({
            report: r,
            version: this.deps.version,
            description: scrub(description),
            report_type: r.report_type,
        });
        const now = Date.now();
        this.#reserve(now);
        let key;
        try {
            const payload = wrap(fitReport(scrub(report), wrap));
            const res = await outbound(this.deps.outbound, {
                method: 'POST',
                url,
                body: JSON.stringify(payload),
                headers: { 'User-Agent': `wallet-node/${this.deps.version}` },
                timeoutMs: SUBMIT_TIMEOUT_MS,
                viaTor,
                maxResponseBytes: MAX_REPLY_BYTES,
                signal: this.deps.signal,
            });
            if (res.status < 200 || res.status > 299)
                throw new OutboundError(`the server answered HTTP ${res.status}`);
            let reply;
            try {
                reply = JSON.parse(res.body);
            }
            catch {
                throw new OutboundError('the server reply is not JSON');
            }
            const k = reply?.key;
            if (typeof k !== 'string' || k === '')
                throw new OutboundError('the server reply carries no key');
            key = k;
        }
        catch (err) {
            this.#release(now);
            if (err instanceof ApiError)
                throw err;
            const reason = err instanceof OutboundError ? err.message : 'unexpected error';
            this.deps.log.warn('debug report submission failed', { reason, via_tor: viaTor });
            throw failed(reason);
        }
        this.deps.log.info('debug report submitted', { report_type: report.report_type, via_tor: viaTor });
        return { submitted: true, key, report_type: report.report_type };
    }
}
//# sourceMappingURL=debug-submit.js.map