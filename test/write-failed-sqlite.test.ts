// A full disk under SQLite (CONTRACT §4): the calendar whose write does not fit fails with `write_failed` and
// writes nothing, the others are written, the API answers 207 (never a bare 500), `sync --local` exits 3,
// the server's log names the cause, and once space returns the next sync writes exactly the feed.
// The disk is real: a small tmpfs mounted for the test (root is available here and in CI).
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { SyncResponse } from "../src/types.js";
import { isBuilt, runBin } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";

const { feed, serve } = useServerFixtures();
const mountPoint = mkdtempSync(path.join(tmpdir(), "calsync-tmpfs-"));
let mounted = false;

beforeAll(() => {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", mountPoint]);
  mounted = true;
});
afterAll(() => {
  if (mounted) execFileSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Fills the disk to the last byte, then frees `keepBytes`; `free()` gives all of it back. */
function fillDisk(dir: string, keepBytes: number) {
  const file = path.join(dir, "filler");
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  // Small pieces: truncating the big file frees its tail.
  execFileSync("truncate", ["-s", String(Math.max(0, written - keepBytes)), file]);
  return { free: () => rmSync(file) };
}

const big = buildIcs(
  Array.from({ length: 4000 }, (_, i) => ({ uid: `big-${i}`, start: day(2 + i), end: day(3 + i), summary: `Guest ${i} with a longer name` })),
);
const small = buildIcs([{ uid: "s1", start: day(5), end: day(8), summary: "Reserved" }]);

describe("a full disk under SQLite", () => {
  it("fails only the calendar that does not fit with write_failed (207, CLI exit 3), and writes exactly the feed once space returns", async () => {
    const db = path.join(mountPoint, "calsync.db");
    const store: Store = await openStore(db);
    const ann = await ownerWith(store, "Ann", {
      "A small flat": [{ source: "airbnb", url: feed({ body: small }) }],
      "B big house": [{ source: "booking", url: feed({ body: big }) }],
    });
    const log: string[] = [];
    const server = await serve(store, { log });
    const disk = fillDisk(mountPoint, 160 * 1024);

    const res = await post(server, ann.token);
    expect(res.status).toBe(207);
    const body = (await res.json()) as SyncResponse;
    expect(body.results.map((r) => [r.propertyName, r.ok])).toEqual([["A small flat", true], ["B big house", false]]);
    expect(body.results[0]!.result.reservationsCreated).toBe(1);
    const failure = body.results[1]!.result;
    expect(failure.error).toEqual({ code: "write_failed", message: "calendar could not be written (the database's disk is full); nothing was changed" });
    expect([failure.reservationsFound, failure.reservationsCreated]).toEqual([0, 0]);
    expect(JSON.stringify(body)).not.toContain(mountPoint);
    // Nothing of the big calendar is stored; the small one is whole.
    expect((await store.listReservations({ ownerId: ann.ownerId })).map((r) => r.uid)).toEqual(["s1"]);
    const line = log.find((l) => l.includes("calendar not written"));
    expect(line).toContain("SQLITE_FULL");

    if (isBuilt()) {
      const cli = await runBin(["sync", "--local", "--db", db, "--json", "--allow-private-networks"]);
      expect(cli.code).toBe(3);
      const local = JSON.parse(cli.stdout) as SyncResponse;
      expect(local.results.map((r) => r.result.error?.code)).toEqual([undefined, "write_failed"]);
    }

    disk.free();
    const after = await post(server, ann.token);
    expect(after.status).toBe(200);
    const done = (await after.json()) as SyncResponse;
    expect(done.results.map((r) => r.result.reservationsCreated)).toEqual([0, 4000]);
    const stored = await store.listReservations({ ownerId: ann.ownerId });
    expect(stored).toHaveLength(4001);
    expect(new Set(stored.map((r) => r.uid)).size).toBe(4001);
  });
});
