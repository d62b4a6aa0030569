/**
 * The page's one way to the node: the REST API under /api/v1 with the session cookie, and the CSRF token on every
 * mutation. Errors come back as values with the node's code and message, shown as they are.
 */
export interface ApiFailure {
  code: string;
  message: string;
  status: number;
  /** Per-field failures of a validation error (payback methods, settings). */
  fields?: { field: string; code: string; message: string }[];
}

export class ApiError extends Error {
  constructor(readonly failure: ApiFailure) {
    super(failure.message);
  }
}

let csrf = '';
export const setCsrf = (token: string): void => {
  csrf = token;
};

let onUnauthenticated: () => void = () => undefined;
export const whenLoggedOut = (fn: () => void): void => {
  onUnauthenticated = fn;
};
/** The session is known to have ended (a restart ends them all): back to the login at once. */
export const sessionEnded = (): void => onUnauthenticated();

/** Asks the operator for the auth code again; true once the node took it (POST /gui/api/confirm). */
let askConfirmation: () => Promise<boolean> = async () => false;
export const whenConfirmationNeeded = (fn: () => Promise<boolean>): void => {
  askConfirmation = fn;
};

/**
 * A call to the node. An action that shows secrets or widens power (a reveal, a new key, a plugin, a security setting)
 * answers 403 `confirmation_required` until the auth code was entered again: the operator is asked, and the call made
 * once more when they confirmed.
 */
export async function api<T = unknown>(method: string, path: string, body?: unknown, query?: Record<string, string | number | undefined>): Promise<T> {
  try {
    return await call<T>(method, path, body, query);
  } catch (err) {
    if (err instanceof ApiError && err.failure.status === 403 && err.failure.code === 'confirmation_required' && (await askConfirmation())) {
      return call<T>(method, path, body, query);
    }
    throw err;
  }
}

/** What the node answers: `{success: true, data}` (data: the route's answer), or an error in one of the two shapes `call` reads. */
interface Envelope {
  success?: boolean;
  data?: { errors?: unknown };
  error?: string | { code?: string; message?: string };
  message?: string;
}

async function call<T>(method: string, path: string, body?: unknown, query?: Record<string, string | number | undefined>): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') headers['X-CSRF-Token'] = csrf;
  const res = await fetch(url, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const envelope: Envelope | null = await res.json().catch(() => null);
  if (!res.ok || !envelope?.success) {
    // Two error shapes: {error: {code, message}}, and the field-level {error: 'validation_error', message, data: {errors}}.
    const error = envelope?.error;
    const flat = typeof error === 'string';
    const fields = envelope?.data?.errors;
    const failure: ApiFailure = {
      code: (flat ? error : error?.code) ?? 'error',
      message: (flat ? envelope?.message : error?.message) ?? res.statusText,
      status: res.status,
      ...(Array.isArray(fields) ? { fields: fields as NonNullable<ApiFailure['fields']> } : {}),
    };
    if (failure.code === 'session_expired' || failure.code === 'unauthenticated') onUnauthenticated();
    throw new ApiError(failure);
  }
  return envelope.data as T;
}

/** A failure as the operator reads it: the node's words first, its code and HTTP status on demand. */
export interface Problem {
  text: string;
  code?: string;
  status?: number;
}

export const problemOf = (err: unknown): Problem => {
  if (!(err instanceof ApiError)) return { text: err instanceof TypeError ? 'The node cannot be reached: check that it runs, then try again.' : String(err) };
  const fields = err.failure.fields?.map((f) => `${f.field}: ${f.message}`).join('; ');
  return { text: `${err.failure.message}${fields ? ` (${fields})` : ''}`, code: err.failure.code, status: err.failure.status };
};
