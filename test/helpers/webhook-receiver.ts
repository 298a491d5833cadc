// A webhook receiver on loopback for tests: records every delivery (headers, raw body, parsed event) and
// answers as scripted — statuses in turn, held answers, or a cut connection.
import http, { type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookEvent, WebhookEventType } from "../../src/types.js";

/** One request the receiver got. */
export interface ReceivedWebhook {
  /** The request's path and query: which endpoint it was sent to, when several share the receiver. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as a receiver must verify it. */
  body: string;
  event: WebhookEvent;
  /** The status it was answered with (null while held or when the connection was cut). */
  status: number | null;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  received: ReceivedWebhook[];
  /** Events received, optionally of one type only. */
  events<T extends WebhookEventType>(type?: T): Array<Extract<WebhookEvent, { type: T }>>;
  /** Answers the next requests with these statuses, in turn; afterwards `204`. */
  answer(...statuses: number[]): void;
  /** Holds every answer from now on until `release()`; `held` counts requests waiting. */
  hold(): void;
  release(): void;
  readonly held: number;
  /** Cuts every connection without answering until `up()`. */
  down(): void;
  up(): void;
  /** Forgets the script, answers what is held and comes back up: a clean receiver for the next test. */
  reset(): void;
  /** Resolves once `count` requests have arrived (rejects after `ms`). */
  arrivals(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1, port 0 (or `port`). */
export async function startWebhookReceiver(options: { port?: number } = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const script: number[] = [];
  const waiting: Array<() => void> = [];
  let holding = false;
  let cut = false;

  const server = http.createServer((req, res) => {
    if (cut) {
      req.socket.destroy();
      return;
    }
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const entry: ReceivedWebhook = { path: req.url ?? "", headers: req.headers, body, event: JSON.parse(body) as WebhookEvent, status: null };
      received.push(entry);
      const answer = () => reply(res, entry, script.shift() ?? 204);
      if (holding) waiting.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const release = () => {
    holding = false;
    for (const answer of waiting.splice(0)) answer();
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    events: (type) => received.map((r) => r.event).filter((event) => type === undefined || event.type === type) as never,
    answer: (...statuses) => void script.push(...statuses),
    hold: () => void (holding = true),
    release,
    get held() {
      return waiting.length;
    },
    down: () => void (cut = true),
    up: () => void (cut = false),
    reset() {
      script.length = 0;
      cut = false;
      release();
    },
    async arrivals(count, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close() {
      for (const answer of waiting.splice(0)) answer();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function reply(res: ServerResponse, entry: ReceivedWebhook, status: number): void {
  entry.status = status;
  res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "" : "no");
}
