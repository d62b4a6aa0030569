/** Small shared pieces of the pages: a labelled field, a status line, a table, a hook that loads and reloads. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { problemOf, type Problem } from './api.js';

/** displayDecimals (Document 2: it shapes the GUI's amounts only; the API and node-cli stay exact). */
let displayDecimals = 2;
export const setDisplayDecimals = (n: unknown): void => {
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 8) displayDecimals = n;
};

/**
 * An exact decimal string as the GUI shows it: cut (Document 2: "truncates, never rounds") to at most displayDecimals
 * places, with no trailing zeros (as the API writes amounts). Worked on the digits, never through a float.
 */
export function displayAmount(amount: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!m || (m[3] ?? '').length <= displayDecimals) return amount;
  const [, sign, whole, frac = ''] = m as unknown as [string, string, string, string];
  const scale = 10n ** BigInt(displayDecimals);
  const units = BigInt(whole) * scale + BigInt(frac.slice(0, displayDecimals) || '0');
  const decimals = displayDecimals ? (units % scale).toString().padStart(displayDecimals, '0').replace(/0+$/, '') : '';
  const text = `${units / scale}${decimals ? `.${decimals}` : ''}`;
  return units === 0n ? text : `${sign}${text}`;
}

/** An amount as displayDecimals shows it, the exact one in its tooltip when they differ. */
export function Amount(props: { value: string | null | undefined; currency?: string | null }) {
  if (props.value === null || props.value === undefined) return <>-</>;
  const unit = props.currency ? ` ${props.currency}` : '';
  const text = displayAmount(props.value);
  return text === props.value ? <>{`${text}${unit}`}</> : <span title={`${props.value}${unit}`}>{`${text}${unit}`}</span>;
}

/** An API timestamp (ISO 8601) as the operator reads it: date and time to the second, UTC. */
export const when = (iso: string | null | undefined): string => (iso ? `${iso.replace('T', ' ').slice(0, 19)} UTC` : '-');

export function Field(props: { label: string; name: string; value: string; onInput: (v: string) => void; type?: string; required?: boolean; placeholder?: string }) {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        placeholder={props.placeholder}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
    </div>
  );
}

/** The outcome of the last action: a success or the node's error in words (its code on demand), announced to screen readers. */
export function Status(props: { ok?: string | null; error?: Problem | null }) {
  const e = props.error;
  if (e)
    return (
      <div class="status error" role="alert">
        <p>{e.text}</p>
        {e.code && (
          <details>
            <summary>Details</summary>
            <code>{e.code}</code>
            {e.status ? ` (HTTP ${e.status})` : ''}
          </details>
        )}
      </div>
    );
  if (props.ok) return <p class="status ok" role="status">{props.ok}</p>;
  return null;
}

export function Table<R>(props: { caption: string; rows: readonly R[]; columns: readonly [string, (r: R) => ComponentChildren][]; empty: string }) {
  if (!props.rows.length) return <p class="empty">{props.empty}</p>;
  return (
    <div class="table-wrap" role="region" aria-label={props.caption} tabIndex={0}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>{props.columns.map(([h]) => <th scope="col">{h}</th>)}</tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr>{props.columns.map(([h, cell]) => <td data-label={h}>{cell(r)}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Loads data, again whenever `key` changes (a live event, a filter) or the page asks. */
export function useLoad<T>(load: () => Promise<T>, key: number | string): { data: T | null; error: Problem | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e) => live && setError(problemOf(e)),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  return { data, error, reload };
}

/**
 * Runs a form action: its result or the node's error in a Status line. While it runs, `busy` is true and another run
 * is refused, so a second click cannot repeat a payment.
 */
export function useAction(): { ok: string | null; error: Problem | null; busy: boolean; run: (work: () => Promise<string>) => Promise<void> } {
  const [ok, setOk] = useState<string | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const run = async (work: () => Promise<string>): Promise<void> => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setOk(null);
    setError(null);
    try {
      setOk(await work());
    } catch (e) {
      setError(problemOf(e));
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  return { ok, error, busy, run };
}

/** A value the operator copies elsewhere (a key hash, a txid): shown whole, with a button that copies it. */
export function Copyable(props: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => navigator.clipboard?.writeText(props.value).then(() => setCopied(true), () => undefined);
  return (
    <span class="copyable">
      <code>{props.value}</code>
      <button type="button" class="secondary" onClick={copy} aria-label={`Copy ${props.label}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

interface SureQuestion {
  title: string;
  detail: string;
  yes: string;
  answer: (yes: boolean) => void;
}
let showSure: (q: SureQuestion | null) => void = () => undefined;

/** Asks before an action that moves money or destroys something; resolves true when the operator agreed. */
export const askSure = (title: string, detail: string, yes: string): Promise<boolean> =>
  new Promise((resolve) => showSure({ title, detail, yes, answer: resolve }));

/** Where the questions of `askSure` appear: one dialog at a time, focused on its safe choice. */
export function SureHost() {
  const [q, setQ] = useState<SureQuestion | null>(null);
  useEffect(() => {
    showSure = setQ;
  }, []);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), [q]);
  if (!q) return null;
  const done = (yes: boolean) => (setQ(null), q.answer(yes));
  return (
    <div class="modal-backdrop">
      <div class="modal" role="alertdialog" aria-modal="true" aria-labelledby="sure-title" aria-describedby="sure-detail">
        <h2 id="sure-title">{q.title}</h2>
        <p id="sure-detail">{q.detail}</p>
        <div class="actions">
          <button type="button" onClick={() => done(true)}>
            {q.yes}
          </button>
          <button type="button" class="secondary" ref={cancel} onClick={() => done(false)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

/** A select of fixed options; `all` adds an empty choice that means no filter. */
export function Choice(props: { label: string; id: string; value: string; options: readonly (string | number)[]; all?: boolean; onChange: (v: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        {props.all && <option value="">all</option>}
        {props.options.map((o) => (
          <option value={String(o)}>{o}</option>
        ))}
      </select>
    </div>
  );
}

/** One term and its value in a drawer's list; an absent value reads `-`. */
export function Row(props: { term: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>{props.children ?? '-'}</dd>
    </>
  );
}

/**
 * A detail panel over the page's right side: focused on its title when it opens, closed by its button, Escape or a
 * click beside it.
 */
export function Drawer(props: { title: string; id: string; close: () => void; focusKey: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.focusKey]);
  return (
    <div class="drawer-backdrop" onClick={(e) => e.target === e.currentTarget && props.close()}>
      <aside class="drawer" role="dialog" aria-modal="true" aria-labelledby={props.id} onKeyDown={(e) => e.key === 'Escape' && props.close()}>
        <h2 id={props.id} tabIndex={-1} ref={heading}>
          {props.title}
        </h2>
        <button type="button" class="secondary" onClick={props.close}>
          Close
        </button>
        {props.children}
      </aside>
    </div>
  );
}

/** Previous and next over a listing the node pages: `total` is what its filters match. */
export function Pager(props: { label: string; offset: number; size: number; shown: number; total: number; go: (offset: number) => void }) {
  const { offset, size, shown, total } = props;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="secondary" disabled={offset === 0} onClick={() => props.go(Math.max(0, offset - size))}>
        Previous
      </button>
      <span aria-live="polite">{shown ? `${offset + 1}–${offset + shown} of ${total}` : `0 of ${total}`}</span>
      <button type="button" class="secondary" disabled={offset + shown >= total} onClick={() => props.go(offset + size)}>
        Next
      </button>
    </nav>
  );
}

/** `work` once the operator agreed to `title`; else nothing is done and the status says so. */
export const afterYes = async (title: string, detail: string, yes: string, work: () => Promise<string>): Promise<string> =>
  (await askSure(title, detail, yes)) ? work() : 'Nothing changed';
