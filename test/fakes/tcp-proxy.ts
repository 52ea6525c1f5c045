// A TCP proxy on 127.0.0.1 in front of a real service (PostgreSQL in the chaos tests): cut() drops
// every connection and refuses new ones (the service is unreachable or restarting), restore() lets
// them through again. The service itself, shared with other tests, is never touched.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  readonly cut: boolean;
  /** Drops every open connection and refuses new ones until restore(). */
  cutOff(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get cut() {
      return cut;
    },
    cutOff() {
      cut = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      cut = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
