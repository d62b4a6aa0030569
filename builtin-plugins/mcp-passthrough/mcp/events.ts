/**
 * The event store of one MCP session (the SDK's `EventStore`): every message written on one of its event streams is
 * kept, with an id `<stream>.<n>`, for the resume window, so that a client whose connection dropped reconnects with
 * `GET` and `Last-Event-ID` and receives the rest of its answer once. The SDK writes the ids and replays; this module
 * only keeps the events, in memory, and forgets those older than the window.
 *
 * It also remembers, per stream, which calls it answers and when it was last resumed: a call whose stream dropped is
 * aborted only when nobody resumed it within the window (endpoint.ts), so a dropped link costs the customer nothing
 * while a client that is gone does not leave the upstream generating for nobody.
 */
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** At most this many events are kept per session (the oldest go first): a bound on memory whatever the window. */
export const MAX_EVENTS_PER_SESSION = 10_000;

interface Stored {
  id: EventId;
  stream: StreamId;
  seq: number;
  message: JSONRPCMessage;
  at: number;
}

export class SessionEvents implements EventStore {
  readonly #events: Stored[] = [];
  readonly #next = new Map<StreamId, number>();
  readonly #resumedAt = new Map<StreamId, number>();
  readonly #calls = new Map<StreamId, (string | number)[]>();

  constructor(
    private readonly windowMs: () => number,
    private readonly now: () => number,
  ) {}

  async storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.#prune();
    const seq = this.#next.get(stream) ?? 0;
    this.#next.set(stream, seq + 1);
    const id = `${stream}.${seq}`;
    this.#events.push({ id, stream, seq, message, at: this.now() });
    return id;
  }

  async getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    const stream = id2stream(id);
    return this.#next.has(stream) ? stream : undefined;
  }

  async replayEventsAfter(lastId: EventId, { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    this.#prune();
    const stream = id2stream(lastId);
    const after = Number(lastId.slice(lastId.lastIndexOf('.') + 1));
    this.#resumedAt.set(stream, this.now());
    for (const e of this.#events.filter((x) => x.stream === stream && x.seq > after)) {
      // The priming event (an empty message) only carries an id: nothing to send again.
      if (Object.keys(e.message).length) await send(e.id, e.message);
    }
    return stream;
  }

  /** The calls a stream answers (its POST's requests), for aborting them when it is not resumed. */
  answers(stream: StreamId, calls: readonly (string | number)[]): void {
    this.#calls.set(stream, [...calls]);
  }

  calls(stream: StreamId): (string | number)[] {
    return this.#calls.get(stream) ?? [];
  }

  /** Whether the stream was resumed at or after `since`. */
  resumedSince(stream: StreamId, since: number): boolean {
    return (this.#resumedAt.get(stream) ?? -Infinity) >= since;
  }

  #prune(): void {
    const cutoff = this.now() - this.windowMs();
    let drop = 0;
    while (drop < this.#events.length && (this.#events[drop]!.at < cutoff || this.#events.length - drop > MAX_EVENTS_PER_SESSION)) drop++;
    if (drop) this.#events.splice(0, drop);
  }
}

const id2stream = (id: EventId): StreamId => id.slice(0, id.lastIndexOf('.'));
