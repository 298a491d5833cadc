// `calsync db backup` / `db restore` and the copy before a schema step (CONTRACT §19): a backup taken while
// calendars are written holds each calendar whole, before or after its write; bad targets and bad backups are
// refused with the database untouched.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CalendarWrite, DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { openStore } from "../src/store/index.js";
import { Database } from "../src/store/sqlite/driver.js";
import { MIGRATIONS } from "../src/store/sqlite/migrations.js";
import { holdServeLock } from "../src/store/sqlite/serve-lock.js";
import type { Store } from "../src/store/types.js";
import { isBuilt, runBin, runCli, tempDir } from "./helpers/cli.js";
import { day } from "./helpers/ics.js";

const tmp = tempDir();
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
afterAll(() => tmp.remove());

const open = async (path: string) => {
  const store = await openStore(path);
  stores.push(store);
  return store;
};
const event = (uid: string, from: number): DatedEvent => datedEvent({
  uid, kind: "booking", start: day(from), end: day(from + 2), summary: `Stay ${uid}`, cancelled: false, details: {}, raw: { UID: uid },
});
const write = (calendarId: string, inserts: DatedEvent[]): CalendarWrite => ({
  calendarId, inserts, updates: [], cancels: [], syncedAt: new Date(),
  feed: { etag: null, lastModified: null, contentHash: "h", lastFound: inserts.length },
});

/** A database with one owner, `calendars` calendars, and `stays` reservations on each of the first `written`. */
async function seed(path: string, calendars: number, stays: number, written = calendars): Promise<{ store: Store; ids: string[] }> {
  const store = await open(path);
  const owner = await store.createOwner("Ana");
  const property = await store.createProperty(owner.id, "Loft", "Europe/Lisbon");
  const ids: string[] = [];
  for (let i = 0; i < calendars; i++) {
    ids.push((await store.createCalendar({ propertyId: property.id, url: `https://h.example/${i}.ics`, source: "airbnb" })).id);
  }
  for (const id of ids.slice(0, written)) await store.applyCalendarSync(write(id, stayEvents(id, stays)));
  return { store, ids };
}
const stayEvents = (calendarId: string, stays: number) => Array.from({ length: stays }, (_, i) => event(`${calendarId}-${i}`, 10 + 3 * i));

/** Reservations per calendar in a SQLite file, read with the driver (no migration, nothing written). */
function countsByCalendar(path: string): Map<string, number> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT calendar_id AS id, count(*) AS n FROM reservations GROUP BY calendar_id").all() as { id: string; n: number }[];
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    return new Map(rows.map((row) => [row.id, row.n]));
  } finally {
    db.close();
  }
}

describe("calsync db backup", () => {
  it("writes a checked copy and reports its counts", async () => {
    const path = tmp.db("small");
    await seed(path, 3, 4);
    const to = join(tmp.dir, "small-backup.db");
    const result = await runCli(["db", "backup", "--db", path, "--to", to, "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ from: path, path: to, schemaVersion: MIGRATIONS.length, counts: { owners: 1, properties: 1, calendars: 3, reservations: 12 } });
    expect(report.bytes).toBe(statSync(to).size);
    expect([...countsByCalendar(to).values()]).toEqual([4, 4, 4]);
    // No partial file is left beside it.
    expect(readdirSync(tmp.dir).filter((name) => name.includes(".partial"))).toEqual([]);
    const text = await runCli(["db", "backup", "--db", path, "--to", join(tmp.dir, "small-text.db")]);
    expect(text.stdout).toMatch(/^Backed up .* 3 calendars, 12 reservations\. integrity_check: ok\.\n$/);
  });

  it("refuses a target that exists without --force, a missing directory and PostgreSQL, changing nothing", async () => {
    const path = tmp.db("refusals");
    await seed(path, 1, 2);
    const taken = join(tmp.dir, "taken.db");
    writeFileSync(taken, "keep me");
    const exists = await runCli(["db", "backup", "--db", path, "--to", taken]);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toContain("exists: choose another file or pass --force");
    expect(readFileSync(taken, "utf8")).toBe("keep me");
    const forced = await runCli(["db", "backup", "--db", path, "--to", taken, "--force"]);
    expect(forced.code).toBe(0);
    expect(countsByCalendar(taken).size).toBe(1);

    const nowhere = await runCli(["db", "backup", "--db", path, "--to", join(tmp.dir, "no", "such", "dir.db")]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain("no directory");
    const missing = await runCli(["db", "backup", "--db", join(tmp.dir, "absent.db"), "--to", join(tmp.dir, "x.db")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no database at");
    expect(existsSync(join(tmp.dir, "absent.db"))).toBe(false);
    const pg = await runCli(["db", "backup", "--db", "postgres://u@127.0.0.1:1/x", "--to", join(tmp.dir, "pg.db")]);
    expect(pg.code).toBe(1);
    expect(pg.stderr).toContain("pg_dump");
    const usage = await runCli(["db", "backup", "--db", path]);
    expect(usage.code).toBe(2);
  });

  it("fails with a clear error on a full disk and leaves no partial copy", async () => {
    // The disk is real: a small tmpfs (root is available here and in CI), filled to its last 32 KiB.
    const disk = mkdtempSync(join(tmpdir(), "calsync-backup-disk-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", disk]);
    try {
      writeFileSync(join(disk, "filler"), Buffer.alloc(2 * 1024 * 1024 - 32 * 1024));
      const path = tmp.db("full");
      await seed(path, 4, 100);
      const to = join(disk, "backup.db");
      const result = await runCli(["db", "backup", "--db", path, "--to", to]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`could not write ${to}: the disk is full`);
      expect(readdirSync(disk)).toEqual(["filler"]);
      expect(countsByCalendar(path).size).toBe(4);
    } finally {
      execFileSync("umount", ["-l", disk]);
      rmSync(disk, { recursive: true, force: true });
    }
  });

  it("holds every calendar before or after its write while 1,000 calendars are being written", async () => {
    if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` before this test");
    const path = tmp.db("busy");
    const { store, ids } = await seed(path, 1000, 20, 0);
    const to = join(tmp.dir, "busy-backup.db");
    // The backup runs in a process of its own, as an operator's would, while this one writes calendar after calendar.
    const backup = runBin(["db", "backup", "--db", path, "--to", to, "--json"]);
    let done = false;
    void backup.finally(() => (done = true));
    let written = 0;
    for (const id of ids) {
      if (done) break;
      await store.applyCalendarSync(write(id, stayEvents(id, 20)));
      written++;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const result = await backup;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const counts = countsByCalendar(to);
    // Whole or nothing per calendar, and the calendars written before the copy's moment are a prefix.
    expect([...counts.values()].every((n) => n === 20)).toBe(true);
    const inCopy = ids.map((id) => counts.has(id));
    const firstMissing = inCopy.indexOf(false);
    expect(inCopy.slice(firstMissing === -1 ? ids.length : firstMissing).every((present) => !present)).toBe(true);
    expect(counts.size).toBeLessThanOrEqual(written);
    expect(JSON.parse(result.stdout).counts.calendars).toBe(1000);
  }, 60_000);
});

describe("calsync db restore", () => {
  it("round-trips a backup and keeps the replaced database beside it", async () => {
    const path = tmp.db("restore");
    const { store, ids } = await seed(path, 2, 3);
    const to = join(tmp.dir, "restore-backup.db");
    expect((await runCli(["db", "backup", "--db", path, "--to", to])).code).toBe(0);
    // After the backup a third stay is written; the restore takes the database back to before it.
    await store.applyCalendarSync(write(ids[0]!, [event("late", 200)]));
    await store.close();
    stores.splice(0);
    expect(countsByCalendar(path).get(ids[0]!)).toBe(4);

    const result = await runCli(["db", "restore", "--db", path, "--from", to, "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.counts).toMatchObject({ calendars: 2, reservations: 6 });
    expect(countsByCalendar(path).get(ids[0]!)).toBe(3);
    expect(countsByCalendar(report.previous).get(ids[0]!)).toBe(4);
    const reopened = await open(path);
    expect((await reopened.calendarReservations(ids[0]!)).length).toBe(3);
  });

  it("refuses while calsync serve holds the database, and a file that is not a sound calsync database", async () => {
    const path = tmp.db("held");
    await seed(path, 1, 2);
    const to = join(tmp.dir, "held-backup.db");
    expect((await runCli(["db", "backup", "--db", path, "--to", to])).code).toBe(0);
    const release = holdServeLock(path);
    try {
      const held = await runCli(["db", "restore", "--db", path, "--from", to]);
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(`calsync serve (pid ${process.pid}) holds`);
    } finally {
      release();
    }

    const text = join(tmp.dir, "notes.txt");
    writeFileSync(text, "not a database at all, just some notes");
    const other = join(tmp.dir, "other.db");
    const foreign = new Database(other);
    foreign.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
    foreign.close();
    const torn = join(tmp.dir, "torn.db");
    copyFileSync(to, torn);
    // A page in the middle overwritten: the header still says SQLite, integrity_check does not agree.
    const bytes = readFileSync(torn);
    bytes.fill(0x41, 4096 * 2, 4096 * 3);
    writeFileSync(torn, bytes);
    const before = readFileSync(path);
    for (const [file, words] of [[text, "is not a calsync database"], [other, "no calsync tables"], [torn, /integrity check|not a calsync database/], [join(tmp.dir, "nope.db"), "no backup at"]] as const) {
      const refused = await runCli(["db", "restore", "--db", path, "--from", file]);
      expect(refused.code, file).toBe(1);
      if (typeof words === "string") expect(refused.stderr).toContain(words);
      else expect(refused.stderr).toMatch(words);
    }
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(tmp.dir).filter((name) => name.startsWith("held.db.before-restore"))).toEqual([]);
  });
});

describe("a copy before a schema step", () => {
  it("is written beside an existing file before it is migrated, and never for a new or current one", async () => {
    const path = tmp.db("old");
    const db = new Database(path);
    // The file as a calsync two schema steps older left it.
    const at = MIGRATIONS.length - 2;
    for (const step of MIGRATIONS.slice(0, at)) db.exec(step);
    db.pragma(`user_version = ${at}`);
    db.close();
    await open(path);
    const copies = readdirSync(tmp.dir).filter((name) => name.startsWith(`old.db.schema-${at}-`) && name.endsWith(".bak"));
    expect(copies).toHaveLength(1);
    const copy = new Database(join(tmp.dir, copies[0]!), { readonly: true });
    expect(copy.pragma("user_version", { simple: true })).toBe(at);
    copy.close();
    await open(path);
    await open(tmp.db("fresh"));
    expect(readdirSync(tmp.dir).filter((name) => name.includes(".schema-"))).toHaveLength(1);
  });
});
