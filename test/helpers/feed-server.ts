// A scriptable loopback feed server (node:http on 127.0.0.1, port 0) shared by every test that fetches feeds.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/** How a route answers. */
export interface RouteSpec {
  /** @default 200 */
  status?: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Sent as `ETag`; a request whose `If-None-Match` matches gets 304. */
  etag?: string;
  /** Sent as `Last-Modified`; a request without `If-None-Match` whose `If-Modified-Since` is not older gets 304. */
  lastModified?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Gzip the body and send `Content-Encoding: gzip`. */
  gzip?: boolean;
  /** Send the body this slowly (chunked), a few bytes at a time. */
  trickleBytesPerSecond?: number;
  /** Never answer (the socket stays open until `close()`). */
  hang?: boolean;
  /** Destroy the socket without answering. */
  destroy?: boolean;
  /** Send the headers and this many bytes of the body, then destroy the socket. */
  destroyAfterBytes?: number;
  /** Answer 302 to this location (absolute or relative). */
  redirectTo?: string;
}

/** Full control over the answer. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A running feed server. */
export interface FeedServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The absolute URL of `path`; with `spec`, also serves `spec` there (routes match on the path without query). */
  url(path: string, spec?: RouteSpec | RouteHandler): string;
  /** Serves `spec` at `path` (replacing any previous route there). */
  setRoute(path: string, spec: RouteSpec | RouteHandler): void;
  /** Same as `setRoute`. */
  route(path: string, spec: RouteSpec | RouteHandler): void;
  /** Every request received, in order (`path` includes the query). */
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  /** Stops listening and destroys open sockets. */
  close(): Promise<void>;
}

/** Options of `startFeedServer`. */
export interface FeedServerOptions {
  /** A loopback address to listen on (e.g. `127.0.0.2` for a second "host"). @default "127.0.0.1" */
  host?: string;
}

/**
 * Starts a feed server on a loopback address with a free port. Unknown paths answer 404.
 *
 * ```ts
 * const feeds = await startFeedServer();            // in beforeAll; `await feeds.close()` in afterAll
 * const url = feeds.url("/airbnb.ics", { body: ics, etag: '"v1"' });
 * feeds.setRoute("/down.ics", { status: 503 });
 * feeds.setRoute("/old.ics", { redirectTo: "/airbnb.ics" });
 * feeds.requests.at(-1)?.headers["if-none-match"];
 * ```
 */
export async function startFeedServer(options: FeedServerOptions = {}): Promise<FeedServer> {
  const host = options.host ?? "127.0.0.1";
  const routes = new Map<string, RouteSpec | RouteHandler>();
  const requests: FeedServer["requests"] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push({ path, headers: req.headers });
    const spec = routes.get(pathOnly(path));
    if (!spec) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (typeof spec === "function") {
      spec(req, res);
      return;
    }
    if (spec.hang) return;
    if (spec.destroy) {
      req.socket.destroy();
      return;
    }
    const answer = () => serve(req, res, spec, later);
    if (spec.delayMs) later(spec.delayMs, answer);
    else answer();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const route = (path: string, spec: RouteSpec | RouteHandler) => {
    routes.set(pathOnly(path), spec);
  };

  return {
    baseUrl,
    url(path, spec) {
      if (spec) route(path, spec);
      return `${baseUrl}${path.startsWith("/") ? "" : "/"}${path}`;
    },
    setRoute: route,
    route,
    requests,
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  spec: RouteSpec,
  later: (ms: number, fn: () => void) => void,
): void {
  if (spec.redirectTo !== undefined) {
    res.writeHead(spec.status ?? 302, { location: spec.redirectTo, ...spec.headers }).end();
    return;
  }
  const headers: Record<string, string> = { "content-type": "text/calendar; charset=utf-8", ...spec.headers };
  if (spec.etag !== undefined) headers.etag = spec.etag;
  if (spec.lastModified !== undefined) headers["last-modified"] = spec.lastModified;
  if (notModified(req, spec)) {
    res.writeHead(304, headers).end();
    return;
  }
  let body = typeof spec.body === "string" ? Buffer.from(spec.body, "utf8") : (spec.body ?? Buffer.alloc(0));
  if (spec.gzip) {
    body = gzipSync(body);
    headers["content-encoding"] = "gzip";
  }
  const status = spec.status ?? 200;
  if (spec.destroyAfterBytes !== undefined) {
    // Promise the whole body, send part of it, then cut the connection.
    res.writeHead(status, { ...headers, "content-length": String(body.length) });
    res.write(body.subarray(0, spec.destroyAfterBytes), () => later(20, () => res.destroy()));
    return;
  }
  if (!spec.trickleBytesPerSecond) {
    if (!hasHeader(headers, "content-length") && !hasHeader(headers, "transfer-encoding")) {
      headers["content-length"] = String(body.length);
    }
    res.writeHead(status, headers).end(body);
    return;
  }
  // Chunked, a few bytes every tick, so a client only gets the whole body after a long time.
  res.writeHead(status, headers);
  const ticksPerSecond = 10;
  const perTick = Math.max(1, Math.floor(spec.trickleBytesPerSecond / ticksPerSecond));
  let offset = 0;
  const tick = () => {
    if (res.destroyed) return;
    if (offset >= body.length) {
      res.end();
      return;
    }
    res.write(body.subarray(offset, offset + perTick));
    offset += perTick;
    later(1000 / ticksPerSecond, tick);
  };
  tick();
}

// RFC 9110 §13.2.2: If-None-Match decides when present; If-Modified-Since only without it.
function notModified(req: IncomingMessage, spec: RouteSpec): boolean {
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch !== undefined) return spec.etag !== undefined && ifNoneMatch === spec.etag;
  const ifModifiedSince = req.headers["if-modified-since"];
  if (ifModifiedSince === undefined || spec.lastModified === undefined) return false;
  return Date.parse(ifModifiedSince) >= Date.parse(spec.lastModified);
}

function pathOnly(path: string): string {
  const withSlash = path.startsWith("/") ? path : `/${path}`;
  const q = withSlash.indexOf("?");
  return q === -1 ? withSlash : withSlash.slice(0, q);
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
