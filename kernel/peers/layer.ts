import type { Logger, NodeAddresses, PeerApi } from '../../sdk/index.js';
import { RawReply } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import type { TxRunner } from '../db/tx.js';
import type { RouteTable } from '../http/route-table.js';
import type { Identity } from '../identity.js';
import { PeerClient, TlsPins, type TransportSettings } from './client.js';
import { DeadLetterQueue } from './dlq.js';
import { buildHello } from './envelope.js';
import { PeerInbound } from './inbound.js';
import { Outbox } from './outbox.js';

const MAX_MESSAGE_BYTES = 1024 * 1024;

export interface PeerLayerDeps {
  db: Db;
  tx: TxRunner;
  identity: Identity;
  addresses: () => NodeAddresses;
  version: string;
  transport: () => TransportSettings;
  retired: () => boolean;
  log: Logger;
}

/** The node-to-node message layer: inbound endpoint, client, outbox and dead letter queue. */
export class PeerLayer {
  readonly inbound: PeerInbound;
  readonly client: PeerClient;
  readonly outbox: Outbox;
  readonly dlq: DeadLetterQueue;

  constructor(private readonly deps: PeerLayerDeps) {
    this.inbound = new PeerInbound(deps.db, deps.identity, deps.addresses, deps.retired, deps.log);
    this.client = new PeerClient(deps.identity, deps.addresses, deps.transport, new TlsPins(deps.db));
    this.dlq = new DeadLetterQueue(deps.db);
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
      hello: (address) => this.client.hello({ [kindOf(address)]: address }),
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

function kindOf(address: string): keyof NodeAddresses {
  if (/\.onion(:\d+)?\/?$/i.test(address.replace(/^https?:\/\//, ''))) return 'tor';
  return address.startsWith('https://') ? 'https' : 'http';
}
