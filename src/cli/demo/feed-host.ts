// The demo's stand-in for the booking channels: bundled sample feeds served on a loopback port, with
// their dates filled in relative to today at the moment each one is fetched.
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * `demo/feeds/` of the package. This file runs as `dist/cli/demo/feed-host.js` (and, in tests, as
 * `src/cli/demo/feed-host.ts`): three levels up is the package root either way.
 */
export const DEMO_FEEDS_DIR = new URL("../../../demo/feeds/", import.meta.url);

/** A running feed host. */
export interface FeedHost {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** Serves the bundled `file` at `/feeds/<name>` (replacing what was served there) and returns its URL. */
  serve(name: string, file: string): string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Options of `startFeedHost`. */
export interface FeedHostOptions {
  /** Folder holding the sample files. @default DEMO_FEEDS_DIR */
  dir?: URL;
  /** Clock deciding "today". @default () => new Date() */
  now?: () => Date;
}

/** Starts serving sample feeds on 127.0.0.1 with a free port; unknown paths answer 404. */
export async function startFeedHost(options: FeedHostOptions = {}): Promise<FeedHost> {
  const dir = options.dir ?? DEMO_FEEDS_DIR;
  const now = options.now ?? (() => new Date());
  const routes = new Map<string, string>();

  const server = http.createServer((req, res) => {
    const file = routes.get(new URL(req.url ?? "/", "http://feeds.invalid").pathname);
    if (!file) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    answer(res, new URL(file, dir), now()).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("sample feed unavailable");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    serve(name, file) {
      routes.set(`/feeds/${name}`, file);
      return `${baseUrl}/feeds/${name}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(res: http.ServerResponse, file: URL, now: Date): Promise<void> {
  const text = await readFile(file, "utf8");
  const ics = file.pathname.endsWith(".ics");
  // Files are kept with LF endings in git; RFC 5545 feeds use CRLF, as the channels send them.
  const body = ics ? fillDates(text, now).replace(/\r?\n/g, "\r\n") : text;
  res.writeHead(200, { "content-type": ics ? "text/calendar; charset=utf-8" : "text/html; charset=utf-8" });
  res.end(body);
}

/**
 * Replaces `{{+N}}` / `{{-N}}` with today ± N days as `YYYYMMDD` (local calendar date, as channels
 * write all-day dates) and `{{now}}` with the UTC time as `YYYYMMDDTHHMMSSZ`.
 */
export function fillDates(text: string, now: Date): string {
  return text.replace(/\{\{([^}]*)\}\}/g, (_match, name: string) => {
    if (name === "now") return now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
    const offset = /^[+-]\d+$/.test(name) ? Number(name) : Number.NaN;
    // A typo in a bundled feed is our bug: fail loudly rather than serve a broken date.
    if (Number.isNaN(offset)) throw new Error(`unknown placeholder {{${name}}} in a demo feed`);
    const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${day.getFullYear()}${pad(day.getMonth() + 1)}${pad(day.getDate())}`;
  });
}
