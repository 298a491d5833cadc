// A loopback TCP proxy in front of a server, to cut it off and bring it back: what a database that goes
// down (or a network that drops) looks like to calsync, without stopping the test run's PostgreSQL.
import { connect, createServer, type Socket } from "node:net";

/** A running proxy; `down()` refuses and drops every connection, `up()` serves again on the same port. */
export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  /** Takes no new connection but keeps those open: a database whose sessions go on while it admits no more. */
  refuseNew(): void;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<free port> to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  await listen(0);
  const port = (server.address() as { port: number }).port;
  const down = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    if (server.listening) await closed;
  };
  return {
    port,
    down,
    up: () => listen(port),
    refuseNew: () => void server.close(),
    close: down,
  };
}
