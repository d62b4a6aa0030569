/** What surrounds every page: which node this is (key hash, addresses), and the live event stream kept open. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api, ApiError } from './api.js';
import { Copyable } from './ui.js';

export type NodeInfo = Pick<ResponseData['GET /api/v1/wallet/info'], 'public_key_hash' | 'addresses'> & {
  /** The operator's name for the node (the `name` setting), empty when unset. */
  name: string;
};

export const addressesOf = (info: Pick<NodeInfo, 'addresses'>): string[] => Object.values(info.addresses).filter((a): a is string => typeof a === 'string' && a !== '');

/** The short name of a node: its key hash's first 8 hex (what node-cli and the contacts pages show). */
const shortHash = (hash: string): string => hash.slice(0, 8);

/** How a node is called in the header and the tab: the operator's name for it, else `node <short hash>`. */
export const nodeLabel = (info: NodeInfo): string => info.name || `node ${shortHash(info.public_key_hash)}`;

/** This node, always in view: its key hash (whole on demand, copyable) and the addresses contacts reach it at. */
export function Identity(props: { info: NodeInfo }) {
  const { info } = props;
  const addresses = addressesOf(info);
  return (
    <details class="identity">
      <summary>
        {info.name ? <strong>{info.name}</strong> : 'Node'} <code>{shortHash(info.public_key_hash)}</code>
        <span class="identity-address">{addresses[0] ?? ''}</span>
      </summary>
      <div class="identity-detail">
        <p>
          Key hash: <Copyable value={info.public_key_hash} label="this node's key hash" />
        </p>
        {addresses.map((a) => (
          <p>
            Address: <Copyable value={a} label={`the address ${a}`} />
          </p>
        ))}
      </div>
    </details>
  );
}

const EVENTS = ['hello', 'transaction', 'contact', 'request', 'p2p', 'dlq', 'inference'];

/**
 * What an event of the stream carries (gui/events.ts): the dead letters waiting, and the bus event it forwards with
 * that event's payload (`hello` has the count only). A stream, not a REST answer: ResponseData does not describe it.
 */
export interface LiveEvent {
  dlq: number;
  event?: string;
  payload?: unknown;
}

/**
 * The node's events while logged in; false while the stream is down. The browser retries a dropped connection by
 * itself, but not one the node answered with an error (a restart, a lost session): then the session is checked
 * (logging out when it ended) and the stream opened again, waiting longer each time up to 30 s.
 */
export function useLiveEvents(active: boolean, onEvent: (data: LiveEvent) => void): boolean {
  const [online, setOnline] = useState(true);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    // Logged out, there is no stream to miss: a new session starts as not offline, not with the last one's state.
    if (!active) {
      setOnline(true);
      return;
    }
    let events: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = 1000;
    let stopped = false;
    const retry = () => {
      timer = setTimeout(async () => {
        try {
          await api('GET', '/gui/api/session');
          if (!stopped) connect();
        } catch (err) {
          if (!(err instanceof ApiError && err.failure.status === 401) && !stopped) retry();
        }
      }, delay);
      delay = Math.min(delay * 2, 30_000);
    };
    const connect = () => {
      events = new EventSource('/gui/api/events');
      events.onopen = () => {
        setOnline(true);
        delay = 1000;
      };
      events.onerror = () => {
        setOnline(false);
        if (events?.readyState === EventSource.CLOSED) retry();
      };
      for (const name of EVENTS) events.addEventListener(name, (e) => handler.current(JSON.parse((e as MessageEvent<string>).data) as LiveEvent));
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      events?.close();
    };
  }, [active]);
  return online;
}
