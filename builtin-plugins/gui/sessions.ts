/**
 * Browser sessions of the GUI. The operator proves the node's auth code once; the session cookie then stands for the
 * admin scope until logout or `idleMs` without a request. Only a hash of each cookie is kept, so a memory dump or a
 * log line cannot be replayed as a session; the CSRF token is separate and travels in a header the browser only sends
 * when the page's own script adds it.
 *
 * Failed logins count per client address: LOCK_AFTER failures within LOCK_WINDOW_MS lock that address for
 * LOCK_MS (429 with Retry-After), whatever code it tries then.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../sdk/index.js';

export const LOCK_AFTER = 5;
const LOCK_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 5 * 60_000;
/** How long a confirmation with the auth code opens the sensitive routes (a reveal) to the session. */
export const CONFIRMED_MS = 60_000;

export interface Session {
  id: string;
  csrf: string;
  lastSeen: number;
  /** Until when the operator's last re-entry of the auth code opens the sensitive routes. */
  confirmedUntil: number;
}

const hash = (token: string): string => createHash('sha256').update(token).digest('hex');

export const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export class GuiSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #failures = new Map<string, { times: number[]; lockedUntil: number }>();
  /** Told when a session ends (logout, idle): its event streams close. */
  readonly #ended = new Set<(id: string) => void>();

  constructor(
    private readonly now: () => number,
    private readonly idleMs: () => number,
  ) {}

  onEnded(listener: (id: string) => void): () => void {
    this.#ended.add(listener);
    return () => this.#ended.delete(listener);
  }

  /** A login attempt from `ip`: the new session's cookie token and CSRF token, or an error (401, 429). */
  login(ip: string, code: unknown, expected: string): { token: string; session: Session } {
    this.#check(ip, code, expected);
    const token = randomBytes(32).toString('base64url');
    const session: Session = { id: hash(token), csrf: randomBytes(24).toString('base64url'), lastSeen: this.now(), confirmedUntil: 0 };
    this.#sessions.set(session.id, session);
    return { token, session };
  }

  /** The auth code entered again in a session: the sensitive routes open to it for CONFIRMED_MS. */
  confirm(ip: string, session: Session, code: unknown, expected: string): void {
    this.#check(ip, code, expected);
    session.confirmedUntil = this.now() + CONFIRMED_MS;
  }

  confirmed(session: Session): boolean {
    return session.confirmedUntil > this.now();
  }

  /** The code against the node's, failures counted per address (lockout). */
  #check(ip: string, code: unknown, expected: string): void {
    const now = this.now();
    const f = this.#failures.get(ip) ?? { times: [], lockedUntil: 0 };
    if (f.lockedUntil > now) {
      const wait = Math.ceil((f.lockedUntil - now) / 1000);
      throw new ApiError('rate_limit_exceeded', 429, `Too many failed logins from this address: try again in ${wait} seconds`, { retry_after: wait });
    }
    if (typeof code !== 'string' || !sameSecret(code.trim().toLowerCase(), expected)) {
      f.times = [...f.times.filter((t) => now - t < LOCK_WINDOW_MS), now];
      if (f.times.length >= LOCK_AFTER) {
        f.lockedUntil = now + LOCK_MS;
        f.times = [];
      }
      this.#failures.set(ip, f);
      throw new ApiError('invalid_auth_code', 401, 'The auth code is not this node\'s (node-cli info --show-auth shows it)');
    }
    this.#failures.delete(ip);
  }

  /** The live session the cookie token names (its idle clock restarted), or null; an idle one ends here. */
  find(token: string | null): Session | null {
    if (!token) return null;
    const s = this.#sessions.get(hash(token));
    if (!s || !this.alive(s)) return null;
    s.lastSeen = this.now();
    return s;
  }

  /** Whether the session is still live, without counting as activity; an idle one ends here. */
  alive(session: Session): boolean {
    if (!this.#sessions.has(session.id)) return false;
    if (this.now() - session.lastSeen <= this.idleMs()) return true;
    this.end(session.id);
    return false;
  }

  /**
   * Calls `end` once the session ends, by logout or by idling out. A connection that stays open (the event stream)
   * is no activity of the operator's: a timer at the session's idle deadline ends it, and is set again for the new
   * deadline while the session is in use.
   */
  follow(session: Session, end: () => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      const wait = Math.max(1000, session.lastSeen + this.idleMs() - this.now() + 1);
      timer = setTimeout(() => this.alive(session) && arm(), wait);
      timer.unref();
    };
    arm();
    const off = this.onEnded((id) => id === session.id && end());
    return () => {
      clearTimeout(timer);
      off();
    };
  }

  end(id: string): void {
    if (!this.#sessions.delete(id)) return;
    for (const listener of this.#ended) listener(id);
  }
}
