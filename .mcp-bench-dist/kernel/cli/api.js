import { CliError } from '../../sdk/cli.js';
import { SignedClient } from './rest-client.js';
/** Requests that take longer than this are abandoned (a node that accepts but never answers). */
const REQUEST_TIMEOUT_MS = 60_000;
/** What the command line says about a few node errors so the operator knows what to do. */
function hint(code, source) {
    if (code.startsWith('auth_invalid_key') || code === 'auth_key_disabled' || code === 'auth_key_expired') {
        return source === 'environment'
            ? ' (check NODE_API_KEY and NODE_API_SECRET)'
            : ` (the key in ${source} is not usable; restarting the node re-creates it)`;
    }
    if (code === 'auth_invalid_signature')
        return ' (the secret does not match the key)';
    if (code === 'auth_expired_timestamp')
        return ' (is the clock of this machine right?)';
    return '';
}
/**
 * The REST API as commands see it: signed calls that return `data` of the success envelope or throw CliError
 * with the node's error code (`status` = HTTP status, other fields of `error` kept). Credentials are resolved at
 * the first call, so commands that need no node (help) work without them.
 */
export class CliApiClient {
    credentials;
    #client = null;
    #creds = null;
    constructor(credentials) {
        this.credentials = credentials;
    }
    get resolved() {
        return this.#creds;
    }
    /** The credentials (resolving them now; throws NO_CREDENTIALS). */
    creds() {
        this.#creds ??= this.credentials();
        return this.#creds;
    }
    #signed() {
        this.#client ??= new SignedClient(this.creds());
        return this.#client;
    }
    baseUrl() {
        return this.creds().baseUrl;
    }
    async raw(method, path, options = {}) {
        const client = this.#signed();
        const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
        const signal = AbortSignal.timeout(timeoutMs);
        try {
            return await client.request(method, path, { ...(options.query ? { query: options.query } : {}), body: options.body, signal });
        }
        catch (err) {
            throw this.#transportError(err, timeoutMs);
        }
    }
    #transportError(err, timeoutMs) {
        const base = this.#signed().credentials.baseUrl;
        const e = err;
        if (e.name === 'TimeoutError' || e.name === 'AbortError') {
            return new CliError('NODE_TIMEOUT', `the node at ${base} did not answer within ${Math.round(timeoutMs / 1000)} s`);
        }
        const cause = e.cause?.code ? ` (${e.cause.code})` : '';
        return new CliError('NODE_UNREACHABLE', `cannot reach the node at ${base}${cause}: is wallet-node running?`);
    }
    async stream(path, query) {
        const client = this.#signed();
        // One deadline for the answer and then for each chunk: a long transfer is fine, a stalled one is not.
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
        let res;
        try {
            res = await client.open('GET', path, { ...(query ? { query } : {}), signal: controller.signal });
        }
        catch (err) {
            clearTimeout(timer);
            throw this.#transportError(err, REQUEST_TIMEOUT_MS);
        }
        if (res.status !== 200 || !res.body) {
            let text;
            try {
                text = await res.text();
            }
            catch (err) {
                throw this.#transportError(err, REQUEST_TIMEOUT_MS);
            }
            finally {
                clearTimeout(timer);
            }
            let parsed = text;
            try {
                parsed = text ? JSON.parse(text) : null;
            }
            catch {
                // not an envelope: reported as text
            }
            throw this.#failure({ status: res.status, headers: res.headers, body: parsed });
        }
        const source = res.body;
        const chunks = async function* (api) {
            try {
                for await (const chunk of source) {
                    timer.refresh();
                    yield chunk;
                }
            }
            catch (err) {
                throw api.#transportError(err, REQUEST_TIMEOUT_MS);
            }
            finally {
                clearTimeout(timer);
                if (!controller.signal.aborted)
                    controller.abort();
            }
        };
        return { headers: res.headers, body: chunks(this) };
    }
    async request(method, path, options = {}) {
        const res = await this.raw(method, path, options);
        const env = (res.body && typeof res.body === 'object' ? res.body : {});
        if (res.status < 400 && env.success !== false) {
            return (env.success === true ? env.data : res.body);
        }
        throw this.#failure(res);
    }
    /** A failed answer as the command line reports it: the node's code and message, the HTTP status, the other fields. */
    #failure(res) {
        const env = (res.body && typeof res.body === 'object' ? res.body : {});
        const error = env.error && typeof env.error === 'object' ? env.error : {};
        const code = typeof error.code === 'string' ? error.code : typeof env.error === 'string' ? env.error : `http_${res.status}`;
        const message = typeof error.message === 'string'
            ? error.message
            : typeof env.message === 'string'
                ? env.message
                : typeof res.body === 'string' && res.body
                    ? res.body.slice(0, 200)
                    : `HTTP ${res.status}`;
        const { code: _code, message: _message, ...rest } = error;
        return new CliError(code, message + hint(code, this.creds().source), { status: res.status, ...rest });
    }
    get(path, query) {
        return this.request('GET', path, query ? { query } : {});
    }
    post(path, body, query) {
        return this.request('POST', path, { body: body ?? {}, ...(query ? { query } : {}) });
    }
    put(path, body, query) {
        return this.request('PUT', path, { body: body ?? {}, ...(query ? { query } : {}) });
    }
    delete(path, query) {
        return this.request('DELETE', path, query ? { query } : {});
    }
}
//# sourceMappingURL=api.js.map