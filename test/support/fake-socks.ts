/**
 * A small SOCKS5 server for tests: no authentication, CONNECT by domain name only. It maps `<name>.onion`
 * hosts to loopback ports through `routes`, which the test controls, and refuses unknown names with reply
 * code 4 (host unreachable), so the Tor path can be exercised without Tor.
 *
 *   const socks = await startFakeSocks();
 *   socks.routes.set(onion, node.port);          // NODE_TOR_SOCKS=127.0.0.1:<socks.port>
 *   socks.hang.add(otherOnion);                  // never answers the CONNECT (for timeouts)
 *   socks.cut();                                 // circuits collapse: the next request needs a new CONNECT
 */
import net from 'node:net';

export interface FakeSocks {
  readonly host: string;
  readonly port: number;
  /** onion host name (lower case) → loopback port. */
  readonly routes: Map<string, number>;
  /** Names whose CONNECT is never answered. */
  readonly hang: Set<string>;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** CONNECT requests seen, in order: the destination names (and ports). */
  readonly requests: ReadonlyArray<{ host: string; port: number; routed: boolean }>;
  /** Ends every open connection, as collapsing circuits would; the proxy goes on accepting new ones. */
  cut(): void;
  close(): Promise<void>;
}

const REPLY_SUCCEEDED = 0x00;
const REPLY_GENERAL_FAILURE = 0x01;
const REPLY_HOST_UNREACHABLE = 0x04;
const REPLY_COMMAND_NOT_SUPPORTED = 0x07;
const REPLY_ADDRESS_TYPE_NOT_SUPPORTED = 0x08;

function reply(code: number): Buffer {
  return Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}

export async function startFakeSocks(): Promise<FakeSocks> {
  const routes = new Map<string, number>();
  const hang = new Set<string>();
  const requests: Array<{ host: string; port: number; routed: boolean }> = [];
  const open = new Set<net.Socket>();
  let connections = 0;

  const server = net.createServer((client) => {
    connections += 1;
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'request' | 'done' = 'greeting';

    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      if (stage === 'greeting') {
        if (buffer.length < 2) return;
        const count = buffer[1]!;
        if (buffer.length < 2 + count) return;
        if (buffer[0] !== 0x05) {
          client.destroy();
          return;
        }
        const methods = buffer.subarray(2, 2 + count);
        buffer = buffer.subarray(2 + count);
        if (!methods.includes(0x00)) {
          client.end(Buffer.from([0x05, 0xff]));
          return;
        }
        client.write(Buffer.from([0x05, 0x00]));
        stage = 'request';
      }
      if (stage === 'request') {
        if (buffer.length < 5) return;
        const [version, command, , type] = buffer;
        if (version !== 0x05) {
          client.destroy();
          return;
        }
        if (type !== 0x03) {
          stage = 'done';
          client.end(reply(REPLY_ADDRESS_TYPE_NOT_SUPPORTED));
          return;
        }
        const length = buffer[4]!;
        if (buffer.length < 5 + length + 2) return;
        const host = buffer.subarray(5, 5 + length).toString('latin1').toLowerCase();
        const port = buffer.readUInt16BE(5 + length);
        const rest = buffer.subarray(5 + length + 2);
        stage = 'done';
        client.off('data', onData);
        const target = routes.get(host);
        requests.push({ host, port, routed: target !== undefined && command === 0x01 });
        if (command !== 0x01) {
          client.end(reply(REPLY_COMMAND_NOT_SUPPORTED));
          return;
        }
        if (hang.has(host)) return;
        if (target === undefined) {
          client.end(reply(REPLY_HOST_UNREACHABLE));
          return;
        }
        client.pause();
        const upstream = net.connect({ host: '127.0.0.1', port: target, noDelay: true });
        open.add(upstream);
        upstream.on('close', () => open.delete(upstream));
        let connected = false;
        upstream.once('connect', () => {
          connected = true;
          client.write(reply(REPLY_SUCCEEDED));
          if (rest.length > 0) upstream.write(rest);
          client.pipe(upstream);
          upstream.pipe(client);
          client.resume();
        });
        upstream.on('error', () => {
          if (connected) client.destroy();
          else client.end(reply(REPLY_GENERAL_FAILURE));
        });
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => {
          if (connected) client.destroy();
        });
      }
    };
    client.on('data', onData);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  return {
    host: '127.0.0.1',
    port,
    routes,
    hang,
    get connections() {
      return connections;
    },
    requests,
    cut: () => {
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
