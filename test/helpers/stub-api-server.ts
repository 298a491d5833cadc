// A scriptable stand-in for the calsync API on a loopback port, to test the SDK's HTTP behaviour
// (retries, timeouts, odd bodies) that the real server never produces on purpose.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

/** One scripted answer. */
export interface StubReply {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is (set `content-type` yourself). */
  body?: unknown;
  /** Wait this long (ms) before answering; a client that gives up first just disconnects. */
  delayMs?: number;
}

/** What the stub saw of one request. */
export interface StubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** `performance.now()` when the request arrived, to measure gaps between attempts. */
  at: number;
}

export interface StubApiServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests received since the last `script()`. */
  requests: StubRequest[];
  /** Sets the answers: request n gets `replies[n]`, later ones the last reply. Clears `requests`. */
  script(...replies: StubReply[]): void;
  /** Resolves when the stub has received `count` requests since the last `script()`. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the stub on 127.0.0.1, port 0. */
export async function startStubApi(): Promise<StubApiServer> {
  let replies: StubReply[] = [{ status: 500, body: { ok: false, error: { code: "internal_error", message: "no reply scripted" } } }];
  const requests: StubRequest[] = [];
  let waiters: Array<{ count: number; resolve: () => void }> = [];

  const server = http.createServer((req, res) => {
    const seen: StubRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, at: performance.now() };
    const reply = replies[Math.min(requests.length, replies.length - 1)] ?? {};
    requests.push(seen);
    waiters = waiters.filter((w) => (requests.length >= w.count ? (w.resolve(), false) : true));
    req.resume();
    const send = (): void => {
      if (res.destroyed) return;
      const json = typeof reply.body !== "string" && reply.body !== undefined;
      res.writeHead(reply.status ?? 200, {
        "x-request-id": `req_stub_${requests.length}`,
        ...(json ? { "content-type": "application/json" } : {}),
        ...reply.headers,
      });
      res.end(json ? JSON.stringify(reply.body) : (reply.body as string | undefined));
    };
    if (reply.delayMs) {
      const timer = setTimeout(send, reply.delayMs);
      res.on("close", () => clearTimeout(timer));
    } else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(...next) {
      replies = next.length > 0 ? next : replies;
      requests.length = 0;
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
