import { escapeUnsafeText } from '../../sdk/text.js';
const cellText = (value) => {
    if (value === null || value === undefined || value === '')
        return '-';
    if (typeof value === 'boolean')
        return value ? 'yes' : 'no';
    if (Array.isArray(value))
        return value.length ? value.map(cellText).join(', ') : '-';
    if (typeof value === 'object')
        return JSON.stringify(value);
    return String(value);
};
/** By code points, so a cut never splits a surrogate pair. */
const clip = (text, max) => {
    if (max === undefined || text.length <= max)
        return text;
    const points = [...text];
    return points.length > max ? `${points.slice(0, Math.max(1, max - 1)).join('')}…` : text;
};
/** A line as the terminal may see it: every unsafe character, line breaks included, shown as its escape. */
export const safeText = (text) => escapeUnsafeText(text);
/** A cell or value on one line: a line break with the blanks around it reads as one space, the rest is escaped. */
const oneLine = (text) => safeText(text.replace(/\s*\n\s*/g, ' '));
/** The lines of an aligned table: header, a dashed rule, rows. Exported for tests. */
export function formatTable(rows, columns) {
    const cells = rows.map((row) => columns.map((c) => {
        const value = row[c.key];
        return clip(oneLine(c.format ? c.format(value, row) : cellText(value)), c.maxWidth);
    }));
    const headers = columns.map((c) => safeText(c.header));
    const widths = columns.map((_c, i) => Math.max(headers[i].length, ...cells.map((r) => r[i].length)));
    const render = (parts) => parts
        .map((p, i) => (columns[i].align === 'right' ? p.padStart(widths[i]) : p.padEnd(widths[i])))
        .join('  ')
        .trimEnd();
    return [render(headers), render(widths.map((w) => '-'.repeat(w))), ...cells.map(render)];
}
/** Aligned `label  value` lines. Exported for tests. */
export function formatKv(pairs, indent = 0) {
    const rows = pairs.map(([k, v]) => [oneLine(k), oneLine(cellText(v))]);
    const width = Math.max(0, ...rows.map(([k]) => k.length));
    const pad = ' '.repeat(indent);
    return rows.map(([k, v]) => `${pad}${k.padEnd(width)}  ${v}`.trimEnd());
}
/** How data without a renderer prints in human mode: scalars as text, objects as key-value lines. */
function defaultHuman(data) {
    if (data === null || data === undefined)
        return ['OK'];
    if (typeof data !== 'object')
        return [String(data)];
    if (Array.isArray(data))
        return data.map((d) => cellText(d));
    const entries = Object.entries(data);
    const message = entries.find(([k, v]) => k === 'message' && typeof v === 'string')?.[1];
    const rest = entries.filter(([k]) => k !== 'message');
    return [...(message ? [message] : []), ...formatKv(rest, message ? 2 : 0)];
}
/**
 * `\u` escapes of the UTF-16 units, which JSON parsers read back as the same character. The only raw control
 * JSON.stringify leaves is the line break of its indentation, which is structure, not text.
 */
const jsonEscape = (ch) => ch === '\n' ? ch : Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
/**
 * Pretty JSON that is still exactly the data once parsed, but safe to let a terminal show: JSON.stringify escapes
 * C0 controls only, so DEL, C1, bidirectional, zero-width and line-separator characters are written as `\u`
 * escapes too (scripts get the same strings; `node-cli --json ... | less` cannot be steered by a peer).
 */
export function safeJson(value) {
    return escapeUnsafeText(JSON.stringify(value, null, 2), jsonEscape);
}
export class Output {
    json;
    stdout;
    stderr;
    #result = null;
    constructor(json, stdout, stderr) {
        this.json = json;
        this.stdout = stdout;
        this.stderr = stderr;
    }
    get hasResult() {
        return this.#result !== null;
    }
    get result() {
        return this.#result?.data;
    }
    success(data, human) {
        if (this.#result)
            throw new Error('a command reported its result twice');
        this.#result = { data: data === undefined ? null : data };
        if (this.json)
            return;
        if (typeof human === 'function')
            human();
        else
            for (const l of human !== undefined ? [human] : defaultHuman(data))
                this.line(l);
    }
    /** One line: a line break inside `text` is shown as `\x0a`, so a peer's text cannot forge a line of its own. */
    line(text = '') {
        if (!this.json)
            this.stdout.write(`${safeText(text)}\n`);
    }
    warn(text) {
        this.stderr.write(`${safeText(text)}\n`);
    }
    table(rows, columns, options = {}) {
        if (this.json)
            return;
        if (options.title)
            this.line(options.title);
        const pad = ' '.repeat(options.indent ?? (options.title ? 2 : 0));
        if (rows.length === 0) {
            this.line(`${pad}${options.empty ?? '(none)'}`);
            return;
        }
        for (const l of formatTable(rows, columns))
            this.line(`${pad}${l}`);
    }
    kv(pairs, options = {}) {
        if (this.json)
            return;
        if (options.title)
            this.line(options.title);
        for (const l of formatKv(pairs, options.indent ?? (options.title ? 2 : 0)))
            this.line(l);
    }
    /** Prints the success envelope (JSON mode; human output was printed as it came). */
    finishSuccess(metadata) {
        if (!this.json)
            return;
        this.stdout.write(`${safeJson({ success: true, data: this.#result?.data ?? null, ...(metadata ? { metadata } : {}) })}\n`);
    }
    finishError(code, message, details, metadata) {
        if (this.json) {
            const { code: _code, message: _message, ...rest } = details ?? {};
            const error = { code, message, ...rest };
            this.stdout.write(`${safeJson({ success: false, error, ...(metadata ? { metadata } : {}) })}\n`);
            return;
        }
        // A message may list several failures one per line (field validation); each line is escaped on its own.
        this.stderr.write(`Error: ${message.split('\n').map(safeText).join('\n')}\n`);
    }
}
//# sourceMappingURL=output.js.map