// fetchFeed against real loopback servers: bodies, validators, error codes, limits, redirects, webcal.
// The private-network guard on real connections is in fetch-feed-guard.test.ts.
import type { IncomingMessage, ServerResponse } from "node:http";
import net from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchFeed, toHttpUrl } from "../src/engine/fetch-feed.js";
import { SDK_VERSION } from "../src/sdk/version.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n";
const loopback = { allowPrivateNetworks: true } as const;
const MiB = 1024 * 1024;
let feeds: FeedServer;

beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

function errorOf(result: Awaited<ReturnType<typeof fetchFeed>>) {
  if (result.kind !== "error") throw new Error(`expected an error, got ${result.kind}`);
  return result.error;
}

describe("fetchFeed: answers", () => {
  it("returns the body, validators and final URL of a feed", async () => {
    const url = feeds.url("/ok.ics", { body: ICS, etag: '"v1"', headers: { "last-modified": "Wed, 01 Jan 2025 00:00:00 GMT" } });
    expect(await fetchFeed(url, loopback)).toEqual({
      kind: "ok",
      bytes: new Uint8Array(Buffer.from(ICS)),
      body: ICS,
      etag: '"v1"',
      lastModified: "Wed, 01 Jan 2025 00:00:00 GMT",
      finalUrl: url,
    });
  });

  it("says so when the body is read after its bytes went to a parse worker, rather than reading it as empty", async () => {
    // Over 4 KiB: a smaller body sits in Node's shared Buffer pool, which is never handed over (it is copied).
    const big = ICS.replace("END:VCALENDAR", `X-PAD:${"x".repeat(5000)}\r\nEND:VCALENDAR`);
    const result = await fetchFeed(feeds.url("/handed.ics", { body: big }), loopback);
    if (result.kind !== "ok") throw new Error(`expected the feed, got ${result.kind}`);
    const kept = await fetchFeed(feeds.url("/kept.ics", { body: big }), loopback);
    if (kept.kind !== "ok") throw new Error(`expected the feed, got ${kept.kind}`);
    expect(kept.body).toBe(big);
    // What a transfer to a worker does to this thread's view of the bytes.
    structuredClone(result.bytes.buffer, { transfer: [result.bytes.buffer as ArrayBuffer] });
    expect(() => result.body).toThrow(/handed to a parse worker/);
    // Read before the hand-over, the text stays.
    structuredClone(kept.bytes.buffer, { transfer: [kept.bytes.buffer as ArrayBuffer] });
    expect(kept.body).toBe(big);
  });

  it("sends validators and answers not_modified on 304", async () => {
    const url = feeds.url("/cached.ics", { body: ICS, etag: '"abc"' });
    const result = await fetchFeed(url, { ...loopback, etag: '"abc"', lastModified: "Wed, 01 Jan 2025 00:00:00 GMT" });
    expect(result).toEqual({ kind: "not_modified" });
    const seen = feeds.requests.filter((r) => r.path === "/cached.ics").at(-1)!;
    expect(seen.headers["if-none-match"]).toBe('"abc"');
    expect(seen.headers["if-modified-since"]).toBe("Wed, 01 Jan 2025 00:00:00 GMT");
  });

  it("fetches the whole feed again when the validator no longer matches", async () => {
    const url = feeds.url("/changed.ics", { body: ICS, etag: '"new"' });
    const result = await fetchFeed(url, { ...loopback, etag: '"old"' });
    expect(result).toMatchObject({ kind: "ok", body: ICS, etag: '"new"' });
  });

  it("announces itself and what it accepts", async () => {
    await fetchFeed(feeds.url("/headers.ics", { body: ICS }), loopback);
    const seen = feeds.requests.filter((r) => r.path === "/headers.ics").at(-1)!;
    expect(seen.headers.accept).toBe("text/calendar, */*;q=0.5");
    expect(seen.headers["accept-encoding"]).toBe("gzip, deflate, br");
    expect(seen.headers["user-agent"]).toBe(`calsync/${SDK_VERSION}`);
    expect(seen.headers["if-none-match"]).toBeUndefined();
    expect(seen.headers["if-modified-since"]).toBeUndefined();
  });

  it("sends the User-Agent it is given", async () => {
    await fetchFeed(feeds.url("/ua.ics", { body: ICS }), { ...loopback, userAgent: "calsync-demo/1.0" });
    expect(feeds.requests.filter((r) => r.path === "/ua.ics").at(-1)!.headers["user-agent"]).toBe("calsync-demo/1.0");
  });

  it("answers not_modified on 304 to If-Modified-Since alone", async () => {
    const lastModified = "Wed, 01 Jan 2025 00:00:00 GMT";
    const url = feeds.url("/dated.ics", { body: ICS, lastModified });
    expect(await fetchFeed(url, loopback)).toMatchObject({ kind: "ok", lastModified, etag: null });
    expect(await fetchFeed(url, { ...loopback, lastModified })).toEqual({ kind: "not_modified" });
  });

  it("lets go of an error page that trickles once it has answered http_error", async () => {
    let closed!: () => void;
    const socketClosed = new Promise<void>((resolve) => (closed = resolve));
    const timers: NodeJS.Timeout[] = [];
    const url = feeds.url("/trickling-503.ics", (req: IncomingMessage, res: ServerResponse) => {
      req.socket.once("close", closed);
      res.writeHead(503, { "content-type": "text/html" });
      // A byte every 200 ms: never idle long enough for a body timeout, never done.
      timers.push(setInterval(() => res.write("."), 200));
    });
    try {
      expect(errorOf(await fetchFeed(url, loopback))).toMatchObject({ code: "http_error", httpStatus: 503 });
      await socketClosed;
    } finally {
      timers.forEach(clearInterval);
    }
  });

  it("reports a 304 it did not ask for as http_error", async () => {
    const result = await fetchFeed(feeds.url("/unasked-304.ics", { status: 304 }), loopback);
    expect(errorOf(result)).toMatchObject({ code: "http_error", httpStatus: 304 });
  });

  it("sends credentials from the URL as Basic auth, not in the request line", async () => {
    const url = feeds.url("/private.ics", { body: ICS }).replace("http://", "http://owner:s%C3%A9same@");
    expect(await fetchFeed(url, loopback)).toMatchObject({ kind: "ok", body: ICS });
    const seen = feeds.requests.filter((r) => r.path === "/private.ics").at(-1)!;
    expect(seen.headers.authorization).toBe(`Basic ${Buffer.from("owner:sésame").toString("base64")}`);
  });

  it("does not throw on credentials that are not valid percent-encoding", async () => {
    const url = feeds.url("/odd-credentials.ics", { body: ICS }).replace("http://", "http://a%zz:b@");
    expect(await fetchFeed(url, loopback)).toMatchObject({ kind: "ok" });
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("decodes a %s body", async (encoding, compress) => {
    const url = feeds.url(`/enc-${encoding}.ics`, { body: compress(Buffer.from(ICS)), headers: { "content-encoding": encoding } });
    expect(await fetchFeed(url, loopback)).toMatchObject({ kind: "ok", body: ICS });
  });

  it("decodes a body the feed server gzips", async () => {
    expect(await fetchFeed(feeds.url("/gz.ics", { body: ICS, gzip: true }), loopback)).toMatchObject({ kind: "ok", body: ICS });
  });

  it("waits for a slow feed that answers within the deadline", async () => {
    const result = await fetchFeed(feeds.url("/slow.ics", { body: ICS, delayMs: 200 }), { ...loopback, timeoutMs: 10_000 });
    expect(result).toMatchObject({ kind: "ok", body: ICS });
  });

  it("strips a byte-order mark", async () => {
    const result = await fetchFeed(feeds.url("/bom.ics", { body: `\uFEFF${ICS}` }), loopback);
    expect(result).toMatchObject({ kind: "ok", body: ICS });
  });

  it("turns invalid UTF-8 into U+FFFD instead of failing", async () => {
    const body = Buffer.concat([Buffer.from("BEGIN:VCALENDAR\r\nX-NAME:Caf"), Buffer.from([0xe9, 0xff]), Buffer.from("\r\nEND:VCALENDAR\r\n")]);
    const result = await fetchFeed(feeds.url("/latin1.ics", { body }), loopback);
    expect(result).toMatchObject({ kind: "ok", body: "BEGIN:VCALENDAR\r\nX-NAME:Caf\uFFFD\uFFFD\r\nEND:VCALENDAR\r\n" });
  });

  it("reports a garbled gzip body as fetch_failed", async () => {
    const url = feeds.url("/garbled.ics", { body: "this is not gzip at all", headers: { "content-encoding": "gzip" } });
    expect(errorOf(await fetchFeed(url, loopback)).code).toBe("fetch_failed");
  });
});

describe("fetchFeed: failures", () => {
  it.each([404, 410, 500, 503])("reports HTTP %i as http_error with the status", async (status) => {
    const result = await fetchFeed(feeds.url(`/status-${status}.ics`, { status, body: "nope" }), loopback);
    expect(errorOf(result)).toEqual({ code: "http_error", httpStatus: status, message: `feed answered HTTP ${status}` });
  });

  it("reports an unknown path (404 from the server) as http_error", async () => {
    expect(errorOf(await fetchFeed(feeds.url("/never-routed.ics"), loopback))).toMatchObject({ code: "http_error", httpStatus: 404 });
  });

  it("reports a refused connection as fetch_failed", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = errorOf(await fetchFeed(`http://127.0.0.1:${port}/cal.ics`, loopback));
    expect(error.code).toBe("fetch_failed");
    expect(error.message).toContain("refused");
  });

  it("reports a connection dropped without an answer as fetch_failed", async () => {
    expect(errorOf(await fetchFeed(feeds.url("/drop.ics", { destroy: true }), loopback)).code).toBe("fetch_failed");
  });

  it.each([
    ["plain", false],
    ["gzipped", true],
  ])("reports a %s body cut off mid-way as fetch_failed, not a truncated feed", async (_name, gzip) => {
    const url = feeds.url(`/cut-${gzip}.ics`, { body: ICS.repeat(200), gzip, destroyAfterBytes: 100 });
    expect(errorOf(await fetchFeed(url, { ...loopback, timeoutMs: 5_000 })).code).toBe("fetch_failed");
  });

  it("reports an unknown host as fetch_failed", async () => {
    expect(errorOf(await fetchFeed("https://no-such-host.invalid/cal.ics")).code).toBe("fetch_failed");
  });

  it.each(["not a url", "ftp://example.com/cal.ics", "file:///etc/passwd", "javascript:alert(1)"])(
    "reports %j as fetch_failed",
    async (url) => {
      expect(errorOf(await fetchFeed(url, loopback)).code).toBe("fetch_failed");
    },
  );

  it("gives up at the deadline on a server that never answers", async () => {
    const error = errorOf(await fetchFeed(feeds.url("/hang.ics", { hang: true }), { ...loopback, timeoutMs: 300 }));
    expect(error).toEqual({ code: "timeout", message: "feed did not answer within 0.3 s" });
  });

  it("gives up at the deadline on a server that trickles bytes forever", async () => {
    // 20 bytes/s for a 10 kB body: never idle, so only a total deadline stops it.
    const url = feeds.url("/trickle.ics", { body: "X".repeat(10_000), trickleBytesPerSecond: 20 });
    expect(errorOf(await fetchFeed(url, { ...loopback, timeoutMs: 500 })).code).toBe("timeout");
  });

  it("reports a caller's abort as fetch_failed, not timeout", async () => {
    const controller = new AbortController();
    const pending = fetchFeed(feeds.url("/hang-abort.ics", { hang: true }), { ...loopback, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(errorOf(await pending).code).toBe("fetch_failed");
  });

  it("never puts the URL's secrets in a message", async () => {
    const secret = "Zq81s3cr3tT0kenValue99";
    const urls = [
      `${feeds.url(`/${secret}.ics`, { status: 503 })}?s=${secret}`,
      `${feeds.url("/loop-secret.ics", { redirectTo: `/loop-secret.ics?k=${secret}` })}?k=${secret}`,
      `http://127.0.0.1:1/${secret}.ics?s=${secret}`,
      `https://no-such-host.invalid/${secret}.ics?s=${secret}`,
    ];
    for (const url of urls) {
      const result = await fetchFeed(url, loopback);
      expect(result.kind).toBe("error");
      expect(JSON.stringify(result)).not.toContain(secret);
    }
  });
});

describe("fetchFeed: size cap", () => {
  it("refuses a declared Content-Length over the cap before reading the body", async () => {
    // The body never comes: only the early check on the header can answer before the deadline.
    feeds.route("/declared-huge.ics", (_req, res) => {
      res.writeHead(200, { "content-length": String(5 * MiB) });
      res.write("BEGIN:VCALENDAR\r\n");
    });
    const error = errorOf(await fetchFeed(feeds.url("/declared-huge.ics"), { ...loopback, maxBytes: MiB, timeoutMs: 5_000 }));
    expect(error).toEqual({ code: "too_large", message: "feed is larger than 1 MiB" });
  });

  it("stops an endless chunked body at the cap", async () => {
    feeds.route("/endless.ics", (_req, res) => {
      res.writeHead(200, { "content-type": "text/calendar" });
      const chunk = Buffer.alloc(64 * 1024, "A");
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    });
    const error = errorOf(await fetchFeed(feeds.url("/endless.ics"), { ...loopback, maxBytes: MiB, timeoutMs: 10_000 }));
    expect(error.code).toBe("too_large");
  });

  it("stops a gzip bomb at the cap on the decoded size", async () => {
    const bomb = gzipSync(Buffer.alloc(50 * MiB));
    expect(bomb.length).toBeLessThan(MiB); // small on the wire: only counting decoded bytes catches it
    const url = feeds.url("/bomb.ics", { body: bomb, headers: { "content-encoding": "gzip" } });
    expect(errorOf(await fetchFeed(url, { ...loopback, maxBytes: MiB })).code).toBe("too_large");
  });

  it("accepts a body exactly at the cap", async () => {
    const body = "B".repeat(1000);
    expect(await fetchFeed(feeds.url("/exact.ics", { body }), { ...loopback, maxBytes: 1000 })).toMatchObject({ kind: "ok", body });
  });
});

describe("fetchFeed: redirects", () => {
  it("follows up to 5 redirects, resolving relative locations", async () => {
    feeds.route("/chain/1", { redirectTo: "/chain/2" });
    feeds.route("/chain/2", { status: 301, redirectTo: "3" });
    feeds.route("/chain/3", { status: 307, redirectTo: `${feeds.baseUrl}/chain/4` });
    feeds.route("/chain/4", { status: 308, redirectTo: "./5" });
    feeds.route("/chain/5", { status: 303, redirectTo: "../final.ics" });
    feeds.route("/final.ics", { body: ICS });
    expect(await fetchFeed(feeds.url("/chain/1"), loopback)).toEqual({
      kind: "ok",
      bytes: new Uint8Array(Buffer.from(ICS)),
      body: ICS,
      etag: null,
      lastModified: null,
      finalUrl: feeds.url("/final.ics"),
    });
  });

  it("gives up after 5 redirects", async () => {
    for (let i = 1; i <= 6; i++) feeds.route(`/long/${i}`, { redirectTo: `/long/${i + 1}` });
    feeds.route("/long/7", { body: ICS });
    const error = errorOf(await fetchFeed(feeds.url("/long/1"), loopback));
    expect(error).toEqual({ code: "fetch_failed", message: "feed redirected more than 5 times" });
  });

  it("reports a redirect loop as fetch_failed", async () => {
    feeds.route("/loop/a", { redirectTo: "/loop/b" });
    feeds.route("/loop/b", { redirectTo: "/loop/a" });
    const error = errorOf(await fetchFeed(feeds.url("/loop/a"), loopback));
    expect(error.code).toBe("fetch_failed");
    expect(error.message).toContain("loop");
  });

  it("refuses a redirect to a scheme other than http(s)", async () => {
    feeds.route("/to-file", { redirectTo: "file:///etc/passwd" });
    expect(errorOf(await fetchFeed(feeds.url("/to-file"), loopback)).code).toBe("fetch_failed");
  });
});

describe("toHttpUrl", () => {
  it.each([
    ["webcal://cal.example.com/feed.ics?s=1", "https://cal.example.com/feed.ics?s=1"],
    ["webcals://cal.example.com/feed.ics", "https://cal.example.com/feed.ics"],
    ["WebCal://Cal.Example.com:8443/a.ics", "https://cal.example.com:8443/a.ics"],
    ["  https://cal.example.com/feed.ics  ", "https://cal.example.com/feed.ics"],
    ["http://cal.example.com/feed.ics", "http://cal.example.com/feed.ics"],
  ])("reads %j as %s", (input, expected) => {
    expect(String(toHttpUrl(input))).toBe(expected);
  });

  it("resolves a redirect's relative location against the current URL", () => {
    expect(String(toHttpUrl("../b.ics", new URL("https://h.example/x/y/a.ics")))).toBe("https://h.example/x/b.ics");
    expect(String(toHttpUrl("webcal://other.example/c.ics", new URL("https://h.example/a")))).toBe("https://other.example/c.ics");
  });

  it.each(["ftp://h.example/a.ics", "file:///etc/passwd", "data:text/calendar,BEGIN", "not a url"])("refuses %j with a message", (input) => {
    expect(typeof toHttpUrl(input)).toBe("string");
  });
});

describe("fetchFeed: webcal", () => {
  it.each(["webcal", "webcals", "WEBCAL"])("fetches %s:// over https", async (scheme) => {
    // A bare TCP server that records the first byte: 0x16 opens a TLS handshake, "G" a plain GET.
    let firstByte: number | undefined;
    const tcp = net.createServer((socket) => {
      socket.once("data", (data) => {
        firstByte = data[0];
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    const { port } = tcp.address() as net.AddressInfo;
    try {
      const result = await fetchFeed(`${scheme}://127.0.0.1:${port}/cal.ics`, { ...loopback, timeoutMs: 5_000 });
      expect(result.kind).toBe("error");
      expect(firstByte).toBe(0x16);
    } finally {
      await new Promise((resolve) => tcp.close(resolve));
    }
  });
});
