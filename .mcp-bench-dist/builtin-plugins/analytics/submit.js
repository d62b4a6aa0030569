/**
 * Posting a payload to `{analytics_url}/v1/report` (Document 2, "Outbound analytics submission"): always through
 * the local Tor SOCKS5 proxy with the name resolved by Tor, so the collector learns neither the node's address
 * nor its DNS resolver; https (or http to an onion service); connect timeout 30 s, request timeout 60 s.
 */
import { readFileSync } from 'node:fs';
import { OutboundError } from '../../sdk/index.js';
import { toJson } from './payload.js';
export const CONNECT_TIMEOUT_MS = 30_000;
export const REQUEST_TIMEOUT_MS = 60_000;
const MAX_REPLY_BYTES = 16 * 1024;
const MAX_REASON_CHARS = 200;
/** A submission that did not reach an accepting collector; the message is fit for the log and the status route. */
export class SubmitError extends Error {
    name = 'SubmitError';
}
export class Submitter {
    deps;
    constructor(deps) {
        this.deps = deps;
    }
    /** The collector's report URL, or null while no `analytics_url` is configured. */
    target() {
        const base = this.deps.settings.get('analyticsUrl');
        return base ? `${base}/v1/report` : null;
    }
    #extraCa() {
        const file = this.deps.settings.get('analyticsCaFile');
        if (!file)
            return undefined;
        try {
            return readFileSync(file, 'utf8');
        }
        catch {
            throw new SubmitError('the analytics_ca_file cannot be read');
        }
    }
    /** Resolves when the collector answered 2xx; throws SubmitError otherwise. */
    async submit(payload, signal) {
        const url = this.target();
        if (!url)
            throw new SubmitError('no analytics_url is configured');
        let status;
        let body;
        try {
            ({ status, body } = await this.deps.outbound.request({
                method: 'POST',
                url,
                body: toJson(payload),
                headers: { 'User-Agent': `wallet-node/${this.deps.version}` },
                viaTor: true,
                connectTimeoutMs: CONNECT_TIMEOUT_MS,
                timeoutMs: REQUEST_TIMEOUT_MS,
                maxResponseBytes: MAX_REPLY_BYTES,
                extraCa: this.#extraCa(),
                signal,
            }));
        }
        catch (err) {
            if (err instanceof SubmitError)
                throw err;
            throw new SubmitError(err instanceof OutboundError ? `${err.code}: ${err.message}` : String(err));
        }
        if (status < 200 || status > 299)
            throw new SubmitError(`the collector answered HTTP ${status}${reason(body)}`);
    }
}
/** The collector's `error` text, when it gave one, cut short: it lands in the log. */
function reason(body) {
    try {
        const error = JSON.parse(body)?.error;
        const text = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : '';
        return text ? ` (${text.slice(0, MAX_REASON_CHARS)})` : '';
    }
    catch {
        return '';
    }
}
//# sourceMappingURL=submit.js.map