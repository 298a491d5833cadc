// Escape sequences from feeds and API clients never reach the operator's terminal (CONTRACT §6, §14): summaries
// and notes are stored without control characters whatever door they came through (a feed, the API's POST and
// PATCH, `reservation add/update`, the dashboard's form), and everything the CLI prints has its control
// characters replaced — text stored by an earlier version, and owners' names, included. The built CLI as a child
// process, a real SQLite file, a loopback feed server, the real server.
import { describe, expect, it, vi } from "vitest";
import { startServer } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import { runBin, runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { startDashboardFixture } from "./helpers/dashboard-fixture.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith } from "./helpers/server-fixtures.js";
import { sqliteKind } from "./helpers/stores.js";

// consola decides once, when loaded, whether colours work here; the in-process run below pretends to be a terminal.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "1";
});

const CHILDREN = { timeout: 120_000 };
const sqlite = sqliteKind();
const { tmp, feeds } = useCliFixtures({ built: true });

// Clear the screen, retitle the window, an OSC 8 link, an OSC 52 clipboard write, a C1 CSI, a backspace, DEL.
const HOSTILE =
  "Guest\u001b[2J\u001b[H \u001b]0;pwned\u0007Lee \u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\ " +
  "\u001b]52;c;cm0gLXJmIH4=\u0007\u009b31mred\u0008end\u007f";
const HOSTILE_STRIPPED = "Guest[2J[H ]0;pwnedLee ]8;;https://evil.example/\\click]8;;\\ ]52;c;cm0gLXJmIH4=31mredend";
/** Any byte a terminal obeys: C0 but newline (tab too in a table is spaced out), DEL, C1. */
const OBEYED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

async function syncedDatabase(summary: string) {
  const db = tmp.db();
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View", "--json", "--db", db])).stdout) as { id: string };
  const body = buildIcs([
    { uid: "a1", start: day(10), end: day(13), summary },
    { uid: "a2", start: day(20), end: day(22), summary: "Reserved" },
  ]);
  const url = feeds.url(`/hostile-${property.id}.ics`, { body });
  expect((await runCli(["calendar", "add", "--property", property.id, "--url", url, "--source", "airbnb", "--db", db])).code).toBe(0);
  const synced = await runBin(["sync", "--local", "--allow-private-networks", "--db", db]);
  expect(synced.code, synced.stderr).toBe(0);
  return { db, propertyId: property.id, url };
}

describe("a feed's summary with escape sequences", CHILDREN, () => {
  it("is stored without its control characters, and `calsync reservations` prints no ESC", async () => {
    const { db } = await syncedDatabase(HOSTILE);
    const listed = await runBin(["reservations", "--db", db]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(OBEYED);
    expect(listed.stdout).toContain("Guest[2J[H ]0;pwnedLee");
    const json = JSON.parse((await runBin(["reservations", "--json", "--db", db])).stdout) as Array<{ uid: string; summary: string }>;
    expect(json.find((r) => r.uid === "a1")!.summary).toBe(HOSTILE_STRIPPED);
  });
});

describe("what the CLI prints", CHILDREN, () => {
  it("replaces the control characters of text stored before (and of owners' names), as a table and on stderr; --json stays exact", async () => {
    const { db, propertyId, url } = await syncedDatabase("Reserved");
    // As an earlier version stored it, and as an owner may name a property.
    await sqlite.query(db, "UPDATE reservations SET summary = ? WHERE uid = 'a1'", [HOSTILE]);
    await sqlite.query(db, "UPDATE properties SET name = ? WHERE id = ?", ["Sea\u001b]0;x\u0007View\nLoft", propertyId]);

    const listed = await runBin(["reservations", "--db", db]);
    expect(listed.stdout).not.toMatch(OBEYED);
    expect(listed.stdout).toContain("Guest\uFFFD[2J\uFFFD[H \uFFFD]0;pwned\uFFFDLee");
    expect(listed.stdout).toContain("Sea\uFFFD]0;x\uFFFDView Loft");
    // Every row is one line, the columns still aligned: the header and both rows end the PROPERTY column alike.
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).map((line) => line.indexOf("airbnb"))).toEqual([lines[0]!.indexOf("SOURCE"), lines[0]!.indexOf("SOURCE")]);

    const json = await runBin(["reservations", "--json", "--db", db]);
    expect(json.stdout).not.toMatch(OBEYED);
    expect((JSON.parse(json.stdout) as Array<{ uid: string; summary: string }>).find((r) => r.uid === "a1")!.summary).toBe(HOSTILE);

    // Errors (run's last word) and warnings (the logger) on stderr quote the property's name.
    const refused = await runBin(["calendar", "add", "--property", propertyId, "--url", url, "--source", "airbnb", "--db", db]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('of "Sea\uFFFD]0;x\uFFFDView\nLoft"');
    expect(refused.stderr).not.toMatch(OBEYED);
    const other = JSON.parse((await runBin(["property", "add", "Barn", "--json", "--db", db])).stdout) as { id: string };
    const warned = await runBin(["calendar", "add", "--property", other.id, "--url", url, "--source", "airbnb", "--db", db]);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('of "Sea\uFFFD]0;x\uFFFDView\nLoft"; both properties will show its stays');
    expect(warned.stderr).not.toMatch(OBEYED);
  });

  it("keeps its own colours on a terminal while a stored ESC is replaced", async () => {
    const { db } = await syncedDatabase("Reserved");
    await sqlite.query(db, "UPDATE reservations SET summary = ?, status = 'cancelled' WHERE uid = 'a1'", ["x\u001b[2Jy"]);
    const listed = await runCli(["reservations", "--db", db], { stdoutTTY: true });
    expect(listed.stdout).toContain("\u001b[2mcancelled\u001b[22m");
    expect(listed.stdout).toContain("x\uFFFD[2Jy");
    expect(listed.stdout).not.toContain("\u001b[2J");
  });
});

describe("a direct stay's summary and note", CHILDREN, () => {
  it("are stored without control characters through the API's POST and PATCH (a note keeps its lines)", async () => {
    const store = await openStore(tmp.db());
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const server = await startServer({ store, port: 0, host: "127.0.0.1", parseThreads: 0, webhooks: false, log: () => {} });
    try {
      const call = (method: string, path: string, body: unknown) =>
        fetch(`${server.url}${path}`, { method, headers: { "x-api-key": ann.token, "content-type": "application/json" }, body: JSON.stringify(body) });
      const created = await call("POST", `/api/v1/properties/${ann.propertyIds.Loft}/reservations`, {
        kind: "booking", arrival: day(30), departure: day(32), summary: HOSTILE, note: "line one\r\nline\u001b[2J two\tend\rlast\u0000", refresh: false,
      });
      expect(created.status).toBe(201);
      const stay = (await created.json()) as { id: string; summary: string; note: string };
      expect([stay.summary, stay.note]).toEqual([HOSTILE_STRIPPED, "line one\nline[2J two\tend\nlast"]);
      const patched = await call("PATCH", `/api/v1/reservations/${stay.id}`, { summary: "\u009b2JPhone\r\nguest\u0007", note: "\u001b]52;c;eA==\u0007" });
      expect(patched.status).toBe(200);
      const [stored] = await store.reservationsPage({ propertyId: ann.propertyIds.Loft!, status: "all", limit: 10 });
      expect([stored!.summary, stored!.note]).toEqual(["2JPhone guest", "]52;c;eA=="]);
    } finally {
      await server.close();
      await store.close();
    }
  });

  it("are stored without control characters by `reservation add` and `update` on the local database", async () => {
    const { db, propertyId } = await syncedDatabase("Reserved");
    const added = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(40), "--departure", day(41), "--summary", HOSTILE, "--note", "a\u001b[2Jb", "--no-refresh", "--json", "--db", db]);
    expect(added.code, added.stderr).toBe(0);
    const stay = JSON.parse(added.stdout) as { id: string; summary: string; note: string };
    expect([stay.summary, stay.note]).toEqual([HOSTILE_STRIPPED, "a[2Jb"]);
    const updated = await runBin(["reservation", "update", stay.id, "--summary", "\u001b]0;t\u0007Mr Lee", "--allow-private-networks", "--json", "--db", db]);
    expect(updated.code, updated.stderr).toBe(0);
    expect((JSON.parse(updated.stdout) as { summary: string }).summary).toBe("]0;tMr Lee");
  });

  it("are stored without control characters from the dashboard's form", async () => {
    const fx = await startDashboardFixture();
    try {
      const { owner, client } = await fx.signedIn();
      const property = await fx.store.createProperty(owner.id, "Harbour Flat");
      await client.page(`/properties/${property.id}`);
      const posted = await client.post(`/properties/${property.id}/stays`, { kind: "booking", arrival: day(10), departure: day(13), summary: HOSTILE, note: "x\u001b[2Jy" });
      expect(posted.status).toBe(303);
      const [stay] = await fx.store.reservationsPage({ propertyId: property.id, status: "all", limit: 10 });
      expect([stay!.summary, stay!.note]).toEqual([HOSTILE_STRIPPED, "x[2Jy"]);
    } finally {
      await fx.close();
    }
  });
});
