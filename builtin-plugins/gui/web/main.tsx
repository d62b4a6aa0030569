/**
 * The operator's GUI: log in with the auth code, then pages over the REST API, refreshed live by the node's events.
 * The browser holds a session cookie (HttpOnly) and a CSRF token, never an API secret or the seed.
 */
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api, problemOf, type Problem, setCsrf, whenConfirmationNeeded, whenLoggedOut } from './api.js';
import { Overview, Send } from './pages.js';
import { Requests } from './page-requests.js';
import { History } from './page-history.js';
import { Contacts } from './page-contacts.js';
import { Approvals, Backups, DeadLetters, Keys, Payback, Plugins, Settings } from './pages-admin.js';
import { Inference } from './page-inference.js';
import { Field, Status, SureHost, setDisplayDecimals } from './ui.js';
import { Identity, nodeLabel, useLiveEvents, type LiveEvent, type NodeInfo } from './chrome.js';

/** POST's answer; GET /gui/api/session answers the same and `authenticated`. */
type SessionInfo = ResponseData['POST /gui/api/session'];

/** The payload of mcp-passthrough's budget.soft_limit bus event (mcp-passthrough/budget.ts), as far as the notice reads it. */
interface SoftLimit {
  key_id: number;
  label: string;
  spent: string;
  budget: string;
  currency: string;
  period: string;
}
const softLimit = (e: LiveEvent): SoftLimit | null => (e.event === 'mcp-passthrough.budget.soft_limit' ? (e.payload as SoftLimit) : null);

const PAGES = [
  ['overview', 'Overview', Overview],
  ['contacts', 'Contacts', Contacts],
  ['send', 'Send', Send],
  ['requests', 'Requests', Requests],
  ['history', 'History', History],
  ['p2p', 'Approvals', Approvals],
  ['payback', 'Payback', Payback],
  ['backups', 'Backups', Backups],
  ['plugins', 'Plugins', Plugins],
  ['settings', 'Settings', Settings],
  ['keys', 'API keys', Keys],
  ['dlq', 'Dead letters', DeadLetters],
  ['inference', 'Inference', Inference],
] as const;

const pageFromHash = (): string => location.hash.replace(/^#\/?/, '') || 'overview';

function Login(props: { onLogin: (s: SessionInfo) => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<Problem | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      props.onLogin(await api<SessionInfo>('POST', '/gui/api/session', { auth_code: code }));
    } catch (err) {
      setError(problemOf(err));
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit} class="form" aria-label="Log in">
        <h1>wallet node</h1>
        <p>Log in with this node's auth code (<code>node-cli info --show-auth</code>).</p>
        <Field label="Auth code" name="auth_code" type="password" value={code} onInput={setCode} required />
        <button type="submit">Log in</button>
        <Status error={error} />
      </form>
    </main>
  );
}

function ConsentModal(props: { onDone: () => void }) {
  const [error, setError] = useState<Problem | null>(null);
  // Keyboard users land in the dialog: its first choice takes the focus when it opens.
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  const choose = async (enable: boolean) => {
    try {
      await api('PUT', '/api/v1/system/settings', { analytics_enabled: enable, analytics_consent_asked: true });
      props.onDone();
    } catch (err) {
      setError(problemOf(err));
    }
  };
  return (
    <div class="modal-backdrop">
      <div class="modal" role="dialog" aria-modal="true" aria-labelledby="consent-title">
        <h2 id="consent-title">Anonymous analytics</h2>
        <p>Send one anonymous, aggregate usage heartbeat per day over Tor? Nothing is sent unless you enable it; you can change this in the settings.</p>
        <div class="actions">
          <button type="button" ref={first} onClick={() => choose(true)}>
            Enable Analytics
          </button>
          <button type="button" class="secondary" onClick={() => choose(false)}>No Thanks</button>
        </div>
        <Status error={error} />
      </div>
    </div>
  );
}

/** The auth code asked again before an action that shows secrets or widens power; `done(true)` once the node took it. */
function ConfirmModal(props: { done: (confirmed: boolean) => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<Problem | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST', '/gui/api/confirm', { auth_code: code });
      props.done(true);
    } catch (err) {
      setError(problemOf(err));
    }
  };
  return (
    <div class="modal-backdrop">
      <form class="modal" role="dialog" aria-modal="true" aria-labelledby="confirm-title" onSubmit={submit}>
        <h2 id="confirm-title">Confirm with the auth code</h2>
        <p>This shows secrets or gives more power (a reveal, a new API key, a plugin, a security setting): enter the auth code again.</p>
        <Field label="Auth code to confirm" name="confirm-code" type="password" value={code} onInput={setCode} required />
        <div class="actions">
          <button type="submit">Confirm</button>
          <button type="button" class="secondary" onClick={() => props.done(false)}>
            Cancel
          </button>
        </div>
        <Status error={error} />
      </form>
    </div>
  );
}

/** The least time between two reloads of the page that live events cause. */
const REFRESH_MS = 500;

/**
 * The page's version, which follows live events at most once per REFRESH_MS: the first event after a quiet spell
 * reloads the page at once, and the events within the window after it reload it once more at its end. A node settling a
 * thousand payments a second sends a thousand events; a reload for each asked it for the page's data as often.
 */
function useLiveVersion(): [number, () => void] {
  const [version, setVersion] = useState(0);
  const due = useRef<{ last: number; timer: ReturnType<typeof setTimeout> | undefined }>({ last: -Infinity, timer: undefined });
  const changed = useCallback(() => {
    const d = due.current;
    if (d.timer !== undefined) return;
    const bump = () => {
      d.timer = undefined;
      d.last = Date.now();
      setVersion((v) => v + 1);
    };
    const wait = d.last + REFRESH_MS - Date.now();
    if (wait <= 0) bump();
    else d.timer = setTimeout(bump, wait);
  }, []);
  useEffect(() => () => clearTimeout(due.current.timer), []);
  return [version, changed];
}

function App() {
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [checked, setChecked] = useState(false);
  const [page, setPage] = useState(pageFromHash());
  const [version, changed] = useLiveVersion();
  const [dlq, setDlq] = useState(0);
  const [consent, setConsent] = useState(false);
  const [menu, setMenu] = useState(false);
  const [confirming, setConfirming] = useState<((confirmed: boolean) => void) | null>(null);

  const begin = (s: SessionInfo) => {
    setCsrf(s.csrf_token);
    setSession(s);
    setConsent(s.consent_required);
  };
  useEffect(() => {
    whenLoggedOut(() => setSession(null));
    whenConfirmationNeeded(() => new Promise<boolean>((resolve) => setConfirming(() => resolve)));
    api<SessionInfo>('GET', '/gui/api/session')
      .then(begin, () => setSession(null))
      .finally(() => setChecked(true));
    const onHash = () => (setPage(pageFromHash()), setMenu(false));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const [budgetNotice, setBudgetNotice] = useState<string | null>(null);
  const online = useLiveEvents(session !== null, (data) => {
    if (typeof data.dlq === 'number') setDlq(data.dlq);
    const b = softLimit(data);
    if (b) setBudgetNotice(`Customer key ${b.label} (${b.key_id}) spent ${b.spent} of its budget of ${b.budget} ${b.currency} per ${b.period}.`);
    changed();
  });
  const [info, setInfo] = useState<NodeInfo | null>(null);
  useEffect(() => {
    if (!session) return;
    Promise.all([api<ResponseData['GET /api/v1/wallet/info']>('GET', '/api/v1/wallet/info'), api<ResponseData['GET /api/v1/system/settings']>('GET', '/api/v1/system/settings')]).then(
      ([wallet, { settings }]) => {
        setDisplayDecimals(settings.display_decimals);
        setInfo({ ...wallet, name: typeof settings.name === 'string' ? settings.name : '' });
      },
      () => undefined,
    );
  }, [session]);
  const label = PAGES.find(([id]) => id === page)?.[1] ?? 'Overview';
  useEffect(() => {
    // Tabs of several nodes stay apart: the page and the node in the tab's title.
    document.title = info ? `${label} · ${nodeLabel(info)} · wallet node` : 'wallet node';
  }, [label, info]);

  if (!checked) return null;
  if (!session) return <Login onLogin={begin} />;
  const Current = PAGES.find(([id]) => id === page)?.[2] ?? Overview;
  const logout = async () => {
    await api('DELETE', '/gui/api/session').catch(() => undefined);
    setSession(null);
  };
  return (
    <>
      <header>
        {info && <Identity info={info} />}
        <nav aria-label="Pages" class={menu ? 'open' : undefined}>
          {/* On a phone the pages fold behind one button (CSS shows it below 640 px): one row instead of four. */}
          <button type="button" class="secondary menu-toggle" aria-expanded={menu} aria-controls="page-links" onClick={() => setMenu(!menu)}>
            Menu: {label}
          </button>
          <div id="page-links" class="page-links">
            {PAGES.map(([id, name]) => (
              <a href={`#/${id}`} aria-current={id === page ? 'page' : undefined}>
                {name}
              </a>
            ))}
          </div>
          <span class="badge" data-testid="dlq-badge" hidden={dlq === 0} aria-label={`${dlq} failed messages`}>
            {dlq}
          </span>
          <button type="button" class="secondary" onClick={logout}>
            Log out
          </button>
        </nav>
      </header>
      {!online && (
        <p class="offline" role="status">
          Offline: live updates stopped. Reconnecting to the node…
        </p>
      )}
      {dlq > 0 && (
        <div class="toast" role="alert">
          {dlq} message(s) could not be delivered: they wait on the <a href="#/dlq">Dead letters page</a> to be retried or abandoned.
        </div>
      )}
      {budgetNotice && (
        <div class="toast" role="alert" data-testid="budget-toast">
          {budgetNotice}{' '}
          <button type="button" class="secondary" onClick={() => setBudgetNotice(null)}>
            Dismiss
          </button>
        </div>
      )}
      <main>
        <Current version={version} />
      </main>
      {consent && <ConsentModal onDone={() => setConsent(false)} />}
      {confirming && <ConfirmModal done={(confirmed) => (setConfirming(null), confirming(confirmed))} />}
      <SureHost />
    </>
  );
}

render(<App />, document.getElementById('app')!);
