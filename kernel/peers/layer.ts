import type { Logger, NodeAddresses, PeerApi } from '../../sdk/index.js';
import { PeerDeliveryError, RawReply } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import type { TxRunner } from '../db/tx.js';
import type { RouteTable } from '../http/route-table.js';
import type { Identity } from '../identity.js';
import { PeerClient, TlsPins } from './client.js';
import { DeadLetterQueue } from './dlq.js';
import { buildHello } from './envelope.js';
import { PeerInbound } from './inbound.js';
import { Outbox } from './outbox.js';
import { kindOfAddress } from './transport.js';
import { createPeerTransports, type PeerTransports } from './transport-select.js';

const MAX_MESSAGE_BYTES = 1024 * 1024;

export interface PeerLayerDeps {
  db: Db;
  tx: TxRunner;
  identity: Identity;
  addresses: () => NodeAddresses;
  version: string;
  /** The settings registry's `get` (transport timeouts, fallbacks, Tor circuit settings). */
  settings: (key: string) => unknown;
  torSocks: { host: string; port: number };
  retired: () => boolean;
  log: Logger;
}

/** The node-to-node message layer: inbound endpoint, client, outbox and dead letter queue. */
export class PeerLayer {
  readonly inbound: PeerInbound;
  readonly client: PeerClient;
  readonly outbox: Outbox;
  readonly dlq: DeadLetterQueue;
  readonly transports: PeerTransports;

  constructor(private readonly deps: PeerLayerDeps) {
    this.inbound = new PeerInbound(deps.db, deps.identity, deps.addresses, deps.retired, deps.log);
    this.transports = createPeerTransports({ torSocks: deps.torSocks, settings: deps.settings });
    this.client = new PeerClient(deps.identity, deps.addresses, deps.settings, this.transports, new TlsPins(deps.db));
    this.dlq = new DeadLetterQueue(deps.db, deps.log);
    this.outbox = new Outbox(deps.db, deps.tx, this.client, (m, type, reason, address) => this.dlq.park(m, type, reason, address), deps.log);
    this.dlq.attach(this.outbox);
  }

  /** The two public endpoints of the protocol, mounted in every route generation. */
  mount(table: RouteTable): void {
    table.add(
      'kernel',
      {
        method: 'GET',
        path: '/peer/v1/hello',
        access: { public: true },
        handler: () =>
          new RawReply(JSON.stringify(buildHello(this.deps.identity, this.deps.addresses(), this.deps.version, Date.now())), 'application/json'),
      },
      { kind: 'peer' },
    );
    table.add(
      'kernel',
      {
        method: 'POST',
        path: '/peer/v1/message',
        access: { public: true },
        maxBodyBytes: MAX_MESSAGE_BYTES,
        handler: async (req) => {
          const result = await this.inbound.receive(req.rawBody);
          return new RawReply(JSON.stringify(result.body), 'application/json', result.status);
        },
      },
      { kind: 'peer' },
    );
  }

  /** A plugin's view; what it registers is forgotten when `release` runs at unload. */
  forPlugin(owner: string): { api: PeerApi; release: () => void } {
    const hookTypes: string[] = [];
    const api: PeerApi = {
      handle: (type, handler) => this.inbound.handle(owner, type, handler),
      filter: (fn) => this.inbound.filter(owner, fn),
      request: (target, payload) => this.client.request(target, payload, `req_${owner}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`),
      enqueue: (target, payload, options) => this.outbox.enqueue(target, payload, options?.messageId),
      outcomes: (type, hooks) => {
        hookTypes.push(type);
        this.outbox.hooks(type, hooks);
      },
      hello: (address) => {
        const kind = kindOfAddress(address);
        if (!kind) throw new PeerDeliveryError('bad_address', `not a peer address: ${address}`, false);
        return this.client.hello({ [kind]: address });
      },
    };
    return {
      api,
      release: () => {
        this.inbound.removeOwner(owner);
        this.outbox.removeHooks(hookTypes);
      },
    };
  }
}
