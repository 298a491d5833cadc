// The parse pool: worker threads give exactly what parseFeed gives on this thread, and a feed that
// outlasts its deadline ends as parse_error on a worker that is replaced.
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEAD_CHARS, readFeedBody } from "../src/engine/feed-reading.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { createParsePool, parseWorkerFile, type ParsePool } from "../src/engine/parse-pool.js";
import type { CalendarSource } from "../src/types.js";
import { isBuilt } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";

const fixtures = new URL("./fixtures/", import.meta.url);
const read = (name: string) => readFileSync(new URL(name, fixtures), "utf8");
const now = new Date();
let pool: ParsePool;
beforeAll(() => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does): the pool runs the built worker");
  pool = createParsePool({ threads: 2 });
});
afterAll(async () => {
  await pool?.close();
});

/** Every fixture but the hostile series, with the channel it comes from (its file name, else "other"). */
const feeds = readdirSync(fixtures)
  .filter((name) => name.endsWith(".ics") && !name.startsWith("dense-series"))
  .map((name) => {
    const channel = name.replace(/\.ics$/, "");
    const sources: CalendarSource[] = ["airbnb", "booking", "vrbo", "expedia", "google", "tripadvisor", "agoda"];
    return [name, sources.includes(channel as CalendarSource) ? (channel as CalendarSource) : "other"] as const;
  });

describe("parse pool", () => {
  it.each(feeds)("reads %s exactly as parseFeed does", async (name, source) => {
    const body = read(name);
    for (const when of [now, new Date(2031, 0, 1)]) {
      expect(await pool.parse(body, { source, now: when })).toEqual(parseFeed(body, { source, now: when }));
    }
  });

  it("reads a feed of several thousand events (several chunks back from the worker) in feed order", async () => {
    const events = Array.from({ length: 2500 }, (_, i) => ({ uid: `e${i}`, start: day(-300 + (i % 900)), end: day(-298 + (i % 900)), summary: i % 3 ? "Reserved" : "Blocked" }));
    const body = buildIcs(events);
    const pooled = await pool.parse(body, { source: "airbnb", now });
    expect(pooled).toEqual(parseFeed(body, { source: "airbnb", now }));
    expect(pooled.ok && pooled.events.map((event) => event.uid)).toEqual(events.map((event) => event.uid));
  });

  it("gives the same errors as parseFeed for HTML, truncated and empty bodies", async () => {
    const bodies: Array<[string, CalendarSource]> = [
      ["<!doctype html><html><body>Sign in</body></html>", "airbnb"],
      ["BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x", "vrbo"],
      ["", "airbnb"],
      ["", "booking"],
    ];
    for (const [body, source] of bodies) {
      expect(await pool.parse(body, { source, now })).toEqual(parseFeed(body, { source, now }));
    }
  });

  it("stops a series still expanding at its deadline with parse_error, then parses the next feed on a fresh worker", async () => {
    // One daily series at 40 times a day in New York: under the occurrence budget, and over a second of work in
    // one series here, which the parser's own clock (checked between series) cannot stop. 250 ms, not less: the
    // next feed is read by a fresh worker within the same deadline, which a CI run beside a benchmark took
    // over 50 ms to do.
    const quick = createParsePool({ threads: 1, timeoutMs: 250 });
    try {
      const result = await quick.parse(read("dense-series-tz.ics"), { source: "google", now });
      expect(result).toEqual({ ok: false, error: { code: "parse_error", message: "feed took longer than 250 ms to read; reading it was stopped" } });
      const next = read("airbnb.ics");
      expect(await quick.parse(next, { source: "airbnb", now })).toEqual(parseFeed(next, { source: "airbnb", now }));
    } finally {
      await quick.close();
    }
  });

  it.each(feeds)("reads the bytes of %s exactly as a sync reads them on its own thread", async (name, source) => {
    const text = read(name);
    const task = { knownHash: null, day: "2026-11-26", parse: { source, now } };
    const here = await readFeedBody(Buffer.from(text), task, parseFeed);
    expect(here.unchanged).toBe(false);
    expect(await pool.read(Buffer.from(text), task)).toEqual(here);
    // A body whose fingerprint is the stored one is not parsed at all.
    const knownHash = here.contentHash;
    expect(await pool.read(Buffer.from(text), { ...task, knownHash })).toEqual({ unchanged: true, contentHash: knownHash });
  });

  it("hands a body's own buffer to the worker without a copy, and copies one that shares Node's buffer pool", async () => {
    const task = { knownHash: null, day: "2026-11-26", parse: { source: "airbnb" as const, now } };
    const big = Buffer.from(buildIcs(Array.from({ length: 400 }, (_, i) => ({ uid: `b${i}`, start: day(i), end: day(i + 1) }))));
    const own = new Uint8Array(big);
    const reading = await pool.read(own, task);
    expect(reading.unchanged === false && reading.parsed.ok && reading.parsed.events.length).toBe(400);
    // Transferred: the worker took the buffer, this thread no longer holds its bytes.
    expect(own.byteLength).toBe(0);

    // A small Buffer lives in a slab shared with other Buffers: transferring that slab would empty them all.
    const text = buildIcs([{ uid: "s1", start: day(3), end: day(5) }]);
    const small = Buffer.from(text);
    const neighbour = Buffer.from("a neighbour in the same slab");
    expect(small.buffer).toBe(neighbour.buffer);
    const smallReading = await pool.read(small, task);
    expect(smallReading.unchanged === false && smallReading.parsed.ok && smallReading.parsed.events.map((event) => event.uid)).toEqual(["s1"]);
    expect(small.toString()).toBe(text);
    expect(neighbour.toString()).toBe("a neighbour in the same slab");
  });

  it("reads a BOM and invalid UTF-8 on the worker exactly as on this thread", async () => {
    const ics = buildIcs([{ uid: "u1", start: day(3), end: day(5), summary: "Caf\u00e9" }]);
    // A BOM, then the calendar with a broken two-byte sequence (0xC3 0x28) in its summary's place.
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ics.replace("Caf\u00e9", "Caf\u00e9 \u0000"))]);
    const broken = Buffer.from(bytes.toString("latin1").replace("\u0000", "\u00c3("), "latin1");
    const task = { knownHash: null, day: "2026-11-26", parse: { source: "airbnb" as const, now } };
    const here = await readFeedBody(broken, task, parseFeed);
    expect(here.unchanged === false && here.parsed.ok && here.parsed.events[0]?.summary).toContain("\ufffd");
    expect(await pool.read(new Uint8Array(broken), task)).toEqual(here);
  });

  it("answers an unchanged small body without a worker, and sends a changed one to the workers", async () => {
    const closed = createParsePool({ threads: 1 });
    await closed.close();
    const body = Buffer.from(read("airbnb.ics"));
    const task = { knownHash: null, day: "2026-11-26", parse: { source: "airbnb" as const, now } };
    const { contentHash } = await readFeedBody(body, task, parseFeed);
    // The pool is closed: only an answer that needs no worker can still come back whole.
    expect(await closed.read(Buffer.from(body), { ...task, knownHash: contentHash })).toEqual({ unchanged: true, contentHash });
    expect(await closed.read(Buffer.from(body), task)).toMatchObject({ unchanged: false, contentHash: null, parsed: { ok: false, error: { code: "parse_error" } } });
  });

  it("reads a body of Buffer.allocUnsafe, handed over or copied as each Node line's Buffer pool allows", async () => {
    // 8 to 32 KiB: a Buffer of its own on Node 20, a slice of the shared (untransferable) pool on Node 24.
    const text = buildIcs(Array.from({ length: 100 }, (_, i) => ({ uid: `m${i}`, start: day(i), end: day(i + 1) })));
    const bytes = Buffer.allocUnsafe(Buffer.byteLength(text));
    bytes.write(text);
    expect(bytes.byteLength).toBeGreaterThan(8192);
    expect(bytes.byteLength).toBeLessThan(32768);
    const reading = await pool.read(bytes, { knownHash: null, day: "2026-11-26", parse: { source: "airbnb", now } });
    expect(reading.unchanged === false && reading.parsed.ok && reading.parsed.events.length).toBe(100);
  });

  it("keeps the start of a body that is no calendar, so the sync can tell a web page", async () => {
    const page = `<!doctype html><html><body>${"Sign in ".repeat(2000)}</body></html>`;
    const reading = await pool.read(Buffer.from(page), { knownHash: null, day: "2026-11-26", parse: { source: "airbnb", now } });
    expect(reading).toMatchObject({ unchanged: false, parsed: { ok: false, error: { code: "not_icalendar" } }, head: page.slice(0, HEAD_CHARS) });
  });

  it("hands piscina a CommonJS worker file, so no worker loads an ES module synchronously", () => {
    // piscina require()s the worker file; Node ≥ 20.19 then loads an ES module synchronously, and a pool
    // closed during that load (a server stopped right after its first sync) aborted the whole process with
    // V8's fatal "IsGraphAsync". Without require(esm) an ES module cannot be require()d at all: the
    // entry must still load, as a function, and load nothing more until it is called.
    const entry = fileURLToPath(parseWorkerFile());
    expect(entry.endsWith(".cjs")).toBe(true);
    const probe = `const task = require(${JSON.stringify(entry)}); if (typeof task !== "function") process.exit(3);`;
    const child = spawnSync(process.execPath, ["--no-experimental-require-module", "-e", probe], { encoding: "utf8" });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
  });

  it("closes while its workers are still starting without taking the process down", async () => {
    for (let round = 0; round < 12; round++) {
      const starting = createParsePool({ threads: 2 });
      const parsed = starting.parse(read("airbnb.ics"), { source: "airbnb", now });
      await new Promise((resolve) => setTimeout(resolve, round * 15));
      await starting.close();
      const result = await parsed;
      // Either it was read before the close, or it ends as parse_error: never a crash, never a hang.
      expect(result.ok || result.error.code === "parse_error").toBe(true);
    }
  });
});
