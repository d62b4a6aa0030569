import { isOnion, outbound, OutboundError } from './outbound.js';
import { cleanVersion, compareVersions } from './semver.js';
/**
 * Release checks against the `updateCheckUrl` source. The source is a JSON document with a `version` or a
 * `tag_name` string (a simple `{"version":"1.2.3"}` file or a GitHub "latest release" answer); an array is
 * read as a list of releases, newest first. The result is cached in memory and in the plugin's table: fresh
 * for 24 h after a success and 1 h after a failure. GET /system/status only reads the cache; the hourly job
 * refreshes a stale cache while `updateCheckEnabled`; POST /system/update-check always fetches.
 */
export const SUCCESS_TTL_MS = 24 * 3_600_000;
export const FAILURE_TTL_MS = 3_600_000;
const TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 1024 * 1024;
const CACHE_KEY = 'update_check';
function versionIn(doc) {
    const release = Array.isArray(doc) ? doc[0] : doc;
    if (!release || typeof release !== 'object')
        return null;
    const { version, tag_name: tag } = release;
    const raw = typeof version === 'string' ? version : typeof tag === 'string' ? tag : null;
    return raw === null ? null : cleanVersion(raw);
}
export class UpdateChecker {
    deps;
    #cache;
    #view;
    #inflight = null;
    constructor(deps) {
        this.deps = deps;
        this.#cache = deps.store.read(CACHE_KEY);
        this.#view = this.#render();
    }
    /** The cached result, ready to serialise (rebuilt only when the cache changes). */
    status() {
        return this.#view;
    }
    stale(now = Date.now()) {
        if (!this.#cache)
            return true;
        const age = now - Date.parse(this.#cache.last_checked);
        return !(age >= 0 && age < (this.#cache.ok ? SUCCESS_TTL_MS : FAILURE_TTL_MS));
    }
    /** The hourly job: refresh only a stale cache, and only when checks are enabled. */
    async refreshIfDue() {
        if (this.deps.settings.get('updateCheckEnabled') && this.stale())
            await this.check();
    }
    /** Fetches now (concurrent callers share one fetch). Never throws: a failure is reported in `error`. */
    check() {
        this.#inflight ??= this.#fetch().finally(() => {
            this.#inflight = null;
        });
        return this.#inflight;
    }
    async #fetch() {
        const target = this.deps.settings.get('updateCheckUrl');
        const url = new URL(target);
        let result;
        try {
            const res = await outbound(this.deps.outbound, {
                method: 'GET',
                url,
                headers: { 'User-Agent': `wallet-node/${this.deps.currentVersion}`, Accept: 'application/vnd.github+json, application/json' },
                timeoutMs: TIMEOUT_MS,
                viaTor: isOnion(url),
                maxResponseBytes: MAX_DOCUMENT_BYTES,
                signal: this.deps.signal,
            });
            if (res.status < 200 || res.status > 299)
                throw new OutboundError(`the release source answered HTTP ${res.status}`);
            let doc;
            try {
                doc = JSON.parse(res.body);
            }
            catch {
                throw new OutboundError('the release source did not answer with JSON');
            }
            const latest = versionIn(doc);
            if (!latest)
                throw new OutboundError('the release document has no version or tag_name');
            result = { ok: true, latest_version: latest, last_checked: new Date().toISOString(), source: url.hostname, error: null };
        }
        catch (err) {
            const message = err instanceof OutboundError ? err.message : 'unexpected error';
            this.deps.log.info('update check failed', { error: message });
            result = { ok: false, latest_version: null, last_checked: new Date().toISOString(), source: url.hostname, error: message };
        }
        if (this.deps.signal.aborted)
            return this.#view;
        this.#cache = result;
        this.deps.store.write(CACHE_KEY, result);
        this.#view = this.#render();
        return this.#view;
    }
    #render() {
        const current = this.deps.currentVersion;
        const c = this.#cache;
        const latest = c?.ok ? c.latest_version : null;
        return {
            // Judged against the running version at render time: after an upgrade an old "available" disappears.
            available: latest !== null && compareVersions(latest, current) > 0,
            current_version: current,
            latest_version: latest,
            last_checked: c?.last_checked ?? null,
            source: c?.source ?? null,
            error: c?.error ?? null,
        };
    }
}
//# sourceMappingURL=update-check.js.map