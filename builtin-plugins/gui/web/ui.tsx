/** Small shared pieces of the pages: a labelled field, a status line, a table, a hook that loads and reloads. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText } from './api.js';

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

/** The outcome of the last action: a success or the node's error, announced to screen readers. */
export function Status(props: { ok?: string | null; error?: string | null }) {
  if (props.error) return <p class="status error" role="alert">{props.error}</p>;
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
            <tr>{props.columns.map(([, cell]) => <td>{cell(r)}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Loads data, again whenever `key` changes (a live event, a filter) or the page asks. */
export function useLoad<T>(load: () => Promise<T>, key: number | string): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  return { data, error, reload };
}

/** Runs a form action: its result or the node's error in a Status line. */
export function useAction(): { ok: string | null; error: string | null; run: (work: () => Promise<string>) => Promise<void> } {
  const [ok, setOk] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (work: () => Promise<string>): Promise<void> => {
    setOk(null);
    setError(null);
    try {
      setOk(await work());
    } catch (e) {
      setError(errorText(e));
    }
  };
  return { ok, error, run };
}
