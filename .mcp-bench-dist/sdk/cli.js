// ---------------------------------------------------------------------------------------------------------
// Errors
/**
 * A failed command. `code` goes to `error.code` of the JSON envelope: the node's own code for REST failures
 * (lower-case, as in Document 1), an upper-case code for failures the command line detects itself
 * (`INVALID_PARAMS`, `COMMAND_NOT_FOUND`, `RATE_LIMITED`...). `details` are merged into `error` (for example
 * `status`, the HTTP status of a REST failure, or `errors`, the per-field list of a validation failure).
 */
export class CliError extends Error {
    code;
    details;
    constructor(code, message, details) {
        super(message);
        this.code = code;
        this.details = details;
        this.name = 'CliError';
    }
}
export function defineCliCommands(contribution) {
    return contribution;
}
// ---------------------------------------------------------------------------------------------------------
// Display of amounts and dates
const asGiven = (value) => (value === null || value === undefined || value === '' ? '-' : String(value));
/** What JSON output and nodes without display preferences show: the API's values unchanged. */
export const RAW_DISPLAY = { amount: asGiven, date: asGiven };
const displaySources = new WeakMap();
/**
 * Installs, for this run, how human output reads the node's display preferences. The plugin that owns those
 * settings calls it from `register`; every command of every plugin then gets them through `cliDisplay`.
 */
export function provideCliDisplay(ctx, load) {
    if (!displaySources.has(ctx))
        displaySources.set(ctx, { load });
}
/**
 * How this run shows amounts and dates to people: read from the node at the first call and kept for the rest of
 * the run. In JSON mode (or when no plugin provides preferences) it asks nothing and changes nothing. Await it
 * before printing amounts or dates: `const show = await cliDisplay(ctx)`, then `format: show.amount`.
 */
export function cliDisplay(ctx) {
    const source = displaySources.get(ctx);
    if (ctx.json || !source)
        return Promise.resolve(RAW_DISPLAY);
    source.loaded ??= source.load(ctx.api);
    return source.loaded;
}
/** Parses a `--flag N` integer option value (for `.option(..., parseIntOption('--limit'))`). */
export function parseIntOption(flag, min = 0) {
    return (value) => {
        if (!/^-?\d+$/.test(value.trim()) || Number(value) < min) {
            throw new CliError('INVALID_PARAMS', `${flag} expects an integer of at least ${min}, got "${value}"`);
        }
        return Number(value);
    };
}
//# sourceMappingURL=cli.js.map