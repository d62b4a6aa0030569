/**
 * An in-memory network: nodes in one process reach each other without sockets, through a switchboard keyed by the
 * host of their http(s) address. Made for simulations (many nodes on a virtual clock): every exchange goes through
 * `link`, which the network's owner sets to decide its fate (deliver now, later, twice, or never). A lost exchange
 * fails with `timeout` after the request's own timeout, as over a socket.
 */
import type { RequestListener } from 'node:http';
import { exchangeInMemory, type MemoryRequest, type MemoryResponse } from '../net/memory-exchange.js';
import { TransportError, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

export interface MemoryExchange {
  /** The sender's http address. */
  from: string;
  request: TransportRequest;
}

/** Decides one exchange: calls `deliver` (any number of times) and answers with one of its responses, or never. */
export type MemoryLink = (exchange: MemoryExchange, deliver: () => Promise<TransportResponse>) => Promise<TransportResponse>;

const hostOf = (address: string): string => {
  try {
    return new URL(address.includes('://') ? address : `http://${address}`).host;
  } catch {
    return address;
  }
};

export class MemoryNetwork {
  readonly #nodes = new Map<string, RequestListener>();
  link: MemoryLink = (_exchange, deliver) => deliver();

  /** Serves requests to `address` with the node's request listener; returns the detach. */
  attach(address: string, listener: RequestListener): () => void {
    const host = hostOf(address);
    this.#nodes.set(host, listener);
    return () => {
      if (this.#nodes.get(host) === listener) this.#nodes.delete(host);
    };
  }

  /** One exchange with the node at `address`, outside any peer layer (a client of its REST API); never faulted. */
  request(address: string, request: MemoryRequest): Promise<MemoryResponse> {
    const listener = this.#nodes.get(hostOf(address));
    if (!listener) return Promise.reject(new TransportError('unreachable', `ECONNREFUSED: no node at ${address}`));
    return exchangeInMemory(listener, request);
  }

  /** The transport of the node whose http address `from` reads (http and https addresses alike). */
  transport(from: () => string): Transport {
    return {
      send: (request) => this.#send(from(), request),
      close: () => {},
    };
  }

  async #send(from: string, request: TransportRequest): Promise<TransportResponse> {
    const deliver = async (): Promise<TransportResponse> => {
      const answer = await this.request(request.address, {
        method: request.method,
        path: request.path,
        headers: request.body === undefined ? {} : { 'content-type': 'application/json' },
        ...(request.body === undefined ? {} : { body: request.body }),
        remoteAddress: hostOf(from).replace(/:\d+$/, ''),
      });
      return { status: answer.status, body: answer.body };
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new TransportError('timeout', `no answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    });
    try {
      return await Promise.race([this.link({ from, request }, deliver), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
