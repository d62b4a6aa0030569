import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../sdk/index.js';
import { mapStrings } from './scrub.js';
/**
 * The debug report (GET and POST /system/debug-report): what an operator attaches to a bug report.
 * It holds system facts, settings, job states, the in-memory log ring and the tail of `node.log`.
 * It never holds the seed phrase, keys, API secrets or the auth code: none of those is read here, settings
 * whose name looks secret are left out, and the auth code is blanked wherever it might appear anyway.
 */
export const LIMITED_LOG_ENTRIES = 50;
export const LIMITED_LOG_LINES = 50;
/** Full mode: up to 5 MB of node.log (Document 1: "full mode up to 5 MB per log"). */
export const FULL_LOG_BYTES = 5 * 1024 * 1024;
export const TRIM_THRESHOLD_BYTES = 4.5 * 1024 * 1024;
export const CEILING_BYTES = 5 * 1024 * 1024;
/** When trimming the log file section, keep this many trailing characters. */
export const TRIMMED_LOG_CHARS = 50_000;
/** At least this many ring entries survive trimming. */
const MIN_KEPT_ENTRIES = 10;
const SECRET_NAME = /secret|token|password|passphrase|mnemonic|seed|private|auth_?code|api_?key/i;
/** The last `maxBytes` of a file (never the whole of a large one), or '' when it cannot be read. */
function readTail(path, maxBytes) {
    let fd = null;
    try {
        fd = openSync(path, 'r');
        const size = fstatSync(fd).size;
        const length = Math.min(size, maxBytes);
        const buf = Buffer.alloc(length);
        readSync(fd, buf, 0, length, size - length);
        return { size, text: buf.toString('utf8'), truncated: length < size };
    }
    catch {
        return { size: 0, text: '', truncated: false };
    }
    finally {
        if (fd !== null)
            closeSync(fd);
    }
}
function nodeLog(dataDir, type) {
    if (type === 'full') {
        const tail = readTail(join(dataDir, 'node.log'), FULL_LOG_BYTES);
        const content = tail.truncated ? `[TRUNCATED: showing the last ${FULL_LOG_BYTES} bytes]\n${tail.text}` : tail.text;
        return { file: 'node.log', size_bytes: tail.size, content, truncated: tail.truncated };
    }
    // 256 KiB comfortably holds 50 lines; a partial first line is dropped with the rest.
    const tail = readTail(join(dataDir, 'node.log'), 256 * 1024);
    const lines = tail.text.split('\n');
    if (lines.at(-1) === '')
        lines.pop();
    const kept = lines.slice(-LIMITED_LOG_LINES);
    return { file: 'node.log', size_bytes: tail.size, content: kept.join('\n'), truncated: kept.length < lines.length || tail.truncated };
}
function publicSettings(kernel) {
    const out = {};
    for (const [key, value] of Object.entries(kernel.settings.values())) {
        if (!SECRET_NAME.test(key))
            out[kernel.settings.toSnake(key)] = value;
    }
    return out;
}
export function buildReport(src, type, description) {
    const { kernel } = src;
    const now = Date.now();
    const mem = process.memoryUsage();
    const entries = kernel.recentLogs(type === 'full' ? Number.MAX_SAFE_INTEGER : LIMITED_LOG_ENTRIES);
    const report = {
        report_version: 1,
        generated_at: new Date(now).toISOString(),
        report_type: type,
        description,
        system_info: {
            node_version: kernel.node.version,
            nodejs_version: process.version,
            platform: process.platform,
            arch: process.arch,
            os_type: os.type(),
            os_release: os.release(),
            cpu_count: os.cpus().length,
            total_memory_bytes: os.totalmem(),
            environment: kernel.node.environment,
            test_mode: kernel.node.testMode,
            started_at: new Date(kernel.node.startedAt).toISOString(),
            uptime_seconds: Math.floor((now - kernel.node.startedAt) / 1000),
            os_uptime_seconds: Math.floor(os.uptime()),
            memory: { rss: mem.rss, heap_used: mem.heapUsed, heap_total: mem.heapTotal, external: mem.external },
            database: src.database(),
            retired: kernel.isRetired(),
            processors: src.processors(),
            jobs: kernel.jobs.states(),
            plugins: kernel.plugins.list().map((p) => ({ name: p.name, version: p.version, enabled: p.enabled, status: p.status, error: p.error })),
            http: kernel.httpMetrics(),
            settings: publicSettings(kernel),
            settings_overridden: kernel.settings.overridden().map((k) => kernel.settings.toSnake(k)),
        },
        debug_entries: entries,
        debug_entries_count: entries.length,
        node_log: nodeLog(kernel.node.dataDir, type),
    };
    // Belt and braces: the auth code is never logged, but if it ever were, it does not leave in a report.
    const code = src.authCode;
    return code ? mapStrings(report, (s) => (s.includes(code) ? s.split(code).join('[redacted-auth-code]') : s)) : report;
}
const sizeOf = (value) => Buffer.byteLength(JSON.stringify(value));
/**
 * Fits a submission under the trim threshold: first the oldest ring entries go (at least 10 stay), then the
 * log file section is cut to its last 50,000 characters. Still over the 5 MB ceiling: refused with
 * `debug_report_error`, pointing at the GET download. `wrap` builds the full payload around the report.
 */
export function fitReport(report, wrap) {
    let size = sizeOf(wrap(report));
    if (size <= TRIM_THRESHOLD_BYTES)
        return report;
    const all = report.debug_entries;
    let dropped = 0;
    while (size > TRIM_THRESHOLD_BYTES && all.length - dropped > MIN_KEPT_ENTRIES) {
        size -= sizeOf(all[dropped]) + 1;
        dropped++;
    }
    const entries = all.slice(dropped);
    let fitted = { ...report, debug_entries: entries, debug_entries_count: entries.length, debug_entries_trimmed: dropped };
    size = sizeOf(wrap(fitted));
    if (size > TRIM_THRESHOLD_BYTES && fitted.node_log.content.length > TRIMMED_LOG_CHARS) {
        const content = fitted.node_log.content;
        const removed = content.length - TRIMMED_LOG_CHARS;
        fitted = {
            ...fitted,
            node_log: { ...fitted.node_log, truncated: true, content: `[TRUNCATED: ${removed} characters removed]\n${content.slice(-TRIMMED_LOG_CHARS)}` },
        };
        size = sizeOf(wrap(fitted));
    }
    if (size > CEILING_BYTES) {
        throw new ApiError('debug_report_error', 500, `The debug report is ${size} bytes even after trimming, over the ${CEILING_BYTES}-byte limit; download it with GET /api/v1/system/debug-report and attach it by hand`);
    }
    return fitted;
}
//# sourceMappingURL=debug-report.js.map