// Administration commands in-process on real SQLite files: owners, properties, calendars, tokens.
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers/cli.js";

const tmp = tempDir();
afterAll(() => tmp.remove());

/** Runs a command that must succeed with --json and returns its parsed stdout. */
async function json<T = any>(db: string, ...argv: string[]): Promise<T> {
  const result = await runCli([...argv, "--json", "--db", db]);
  expect(result.code, `${argv.join(" ")}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe("calsync owner", () => {
  it("adds an owner and lists the same object", async () => {
    const db = tmp.db();
    const owner = await json(db, "owner", "add", "Ann Smith");
    expect(owner).toEqual({ id: expect.any(String), name: "Ann Smith" });
    expect(await json(db, "owner", "list")).toEqual([owner]);
  });

  it("refuses a second owner of the same name", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const result = await runCli(["owner", "add", "Ann", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/an owner named "Ann" already exists/);
  });

  it("lists owners as a table for people", async () => {
    const db = tmp.db();
    const owner = await json(db, "owner", "add", "Ann");
    const result = await runCli(["owner", "list", "--db", db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+NAME\s+EMAIL\s+CREATED\n/);
    expect(result.stdout).toContain(owner.id);
  });

  it("takes the database from CALSYNC_DB when --db is left out", async () => {
    const db = tmp.db();
    await runCli(["owner", "add", "Ann"], { env: { CALSYNC_DB: db } });
    expect(await json(db, "owner", "list")).toEqual([{ id: expect.any(String), name: "Ann" }]);
  });
});

describe("calsync property", () => {
  it("adds a property to the only owner without --owner, and lists it", async () => {
    const db = tmp.db();
    const owner = await json(db, "owner", "add", "Ann");
    const property = await json(db, "property", "add", "Sea View Loft");
    expect(property).toEqual({
      id: expect.any(String), ownerId: owner.id, name: "Sea View Loft", timeZone: null,
      checkInTime: "15:00", checkOutTime: "11:00", bufferNights: 0, cleanerEmails: [],
    });
    expect(await json(db, "property", "list")).toEqual([property]);
  });

  it("chooses the owner by name or id when there are several", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const bob = await json(db, "owner", "add", "Bob");
    const byName = await json(db, "property", "add", "Cabin", "--owner", "Bob");
    const byId = await json(db, "property", "add", "Barn", "--owner", bob.id);
    expect([byName.ownerId, byId.ownerId]).toEqual([bob.id, bob.id]);
    expect(await json(db, "property", "list", "--owner", "Ann")).toEqual([]);
  });

  it("explains that an owner is needed first", async () => {
    const result = await runCli(["property", "add", "Loft", "--db", tmp.db()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no owner yet: create one with `calsync owner add NAME`/);
  });

  it("names an unknown owner", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const result = await runCli(["property", "add", "Loft", "--owner", "Zed", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no owner "Zed"/);
  });

  it("removes a property with its calendars", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const property = await json(db, "property", "add", "Loft");
    await json(db, "calendar", "add", "--property", property.id, "--url", "https://example.com/a.ics");
    expect(await json(db, "property", "remove", property.id)).toEqual(property);
    expect(await json(db, "property", "list")).toEqual([]);
    expect(await json(db, "calendar", "list")).toEqual([]);
  });

  it("fails with exit 1 on an unknown property id", async () => {
    const db = tmp.db();
    const result = await runCli(["property", "remove", "prp_nope", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe('error: no property "prp_nope" (see: calsync property list)\n');
  });
});

describe("calsync calendar", () => {
  const secretUrl = "https://www.airbnb.com/calendar/ical/12345.ics?s=f00dfeedsecret99";

  async function withProperty() {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const property = await json(db, "property", "add", "Loft");
    return { db, property };
  }

  it("adds a calendar with the source detected from the host and the URL masked", async () => {
    const { db, property } = await withProperty();
    const calendar = await json(db, "calendar", "add", "--property", property.id, "--url", secretUrl);
    expect(calendar).toEqual({
      id: expect.any(String), propertyId: property.id, source: "airbnb", url: expect.any(String), consecutiveFailures: 0, failingSince: null,
    });
    expect(calendar.url).toContain("airbnb.com");
    expect(calendar.url).not.toContain("f00dfeedsecret99");
  });

  it("keeps an explicit --source", async () => {
    const { db, property } = await withProperty();
    const calendar = await json(db, "calendar", "add", "--property", property.id, "--url", secretUrl, "--source", "vrbo");
    expect(calendar.source).toBe("vrbo");
  });

  it("never shows the feed URL's secret query in listings", async () => {
    const { db, property } = await withProperty();
    const added = await json(db, "calendar", "add", "--property", property.id, "--url", secretUrl);
    expect(await json(db, "calendar", "list")).toEqual([added]);
    const human = await runCli(["calendar", "list", "--db", db]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ID\s+PROPERTY\s+SOURCE\s+URL\s+LAST SYNC\s+FAILING SINCE\s+STATUS\n/);
    expect(human.stdout).toContain("not synced yet");
    expect(human.stdout + human.stderr).not.toContain("f00dfeedsecret99");
  });

  it("filters the listing by property", async () => {
    const { db, property } = await withProperty();
    const other = await json(db, "property", "add", "Barn");
    const mine = await json(db, "calendar", "add", "--property", property.id, "--url", "https://example.com/1.ics");
    await json(db, "calendar", "add", "--property", other.id, "--url", "https://example.com/2.ics");
    expect(await json(db, "calendar", "list", "--property", property.id)).toEqual([mine]);
  });

  it("fails with exit 1 when the property does not exist", async () => {
    const { db } = await withProperty();
    const result = await runCli(["calendar", "add", "--property", "prp_nope", "--url", secretUrl, "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no property "prp_nope"/);
  });

  it("removes a calendar, and fails with exit 1 on an unknown one", async () => {
    const { db, property } = await withProperty();
    const calendar = await json(db, "calendar", "add", "--property", property.id, "--url", secretUrl);
    expect(await json(db, "calendar", "remove", calendar.id)).toEqual(calendar);
    expect(await json(db, "calendar", "list")).toEqual([]);
    // For people: the channel and the property by name, the id after them.
    const second = await json(db, "calendar", "add", "--property", property.id, "--url", secretUrl);
    const text = await runCli(["calendar", "remove", second.id, "--db", db]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`Removed the Airbnb calendar of "Loft" and its reservations (${second.id}).\n`);
    const again = await runCli(["calendar", "remove", calendar.id, "--db", db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no calendar ".+" \(see: calsync calendar list\)/);
  });
});

describe("a database that cannot be opened", () => {
  it("fails with exit 1 and one line naming the file, whatever the command", async () => {
    const notSqlite = tmp.db("notes.db");
    writeFileSync(notSqlite, "shopping list: milk, eggs\n");
    for (const [db, reason] of [[notSqlite, "file is not a database"], [tmp.dir, "unable to open database file"]] as const) {
      for (const argv of [["owner", "list"], ["token", "create", "--json"]]) {
        const result = await runCli([...argv, "--db", db]);
        expect([result.code, result.stdout]).toEqual([1, ""]);
        expect(result.stderr).toBe(`error: cannot open the SQLite database ${db}: ${reason}\n`);
      }
    }
  });
});

describe("calsync token", () => {
  const TOKEN = /^cs_[0-9A-Za-z]{32}$/;

  it("creates a token, shows it once and never lists it again", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const created = await json(db, "token", "create", "--name", "backend");
    expect(created).toEqual({ id: expect.any(String), token: expect.stringMatching(TOKEN), name: "backend", expiresAt: null, scopes: ["sync", "read", "write"] });

    const listed = await runCli(["token", "list", "--json", "--db", db]);
    const human = await runCli(["token", "list", "--db", db]);
    for (const output of [listed.stdout, human.stdout]) {
      expect(output).not.toContain(created.token);
      expect(output).toContain(created.token.slice(0, 7));
    }
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: created.id, name: "backend", expiresAt: null, revokedAt: null }),
    ]);
    expect(listed.stdout).not.toMatch(/hash/);
  });

  it("creates a token with only the scopes asked for, lists them, and refuses an unknown scope as a usage error", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const created = await json(db, "token", "create", "--name", "site", "--scope", "write, read");
    expect(created.scopes).toEqual(["read", "write"]);
    expect(JSON.parse((await runCli(["token", "list", "--json", "--db", db])).stdout)[0].scopes).toEqual(["read", "write"]);
    expect((await runCli(["token", "list", "--db", db])).stdout).toMatch(/SCOPES[\s\S]*read,write/);
    const bad = await runCli(["token", "create", "--scope", "read,admin", "--db", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown scope "admin"/);
    expect(JSON.parse((await runCli(["token", "list", "--json", "--db", db])).stdout)).toHaveLength(1);
  });

  it("prints only the token on stdout for people, with the warning on stderr", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const result = await runCli(["token", "create", "--db", db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^cs_[0-9A-Za-z]{32}\n$/);
    expect(result.stderr).toMatch(/will not be shown again/);
  });

  it("refuses an empty --name as a usage error (an unset shell variable) and creates no token", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    for (const name of ["", "   "]) {
      const result = await runCli(["token", "create", "--name", name, "--db", db]);
      expect([result.code, result.stdout]).toEqual([2, ""]);
      expect(result.stderr).toMatch(/^error: --name is empty/);
    }
    expect(await json(db, "token", "list")).toEqual([]);
  });

  it("sets an expiry from --expires-in", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const created = await json(db, "token", "create", "--expires-in", "90d");
    const days = (Date.parse(created.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);
  });

  it("revokes a token, and fails with exit 1 on an unknown id", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann");
    const created = await json(db, "token", "create");
    const revoked = await json(db, "token", "revoke", created.id);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    const [listed] = await json(db, "token", "list");
    expect(listed.revokedAt).toBe(revoked.revokedAt);

    const unknown = await runCli(["token", "revoke", "tok_nope", "--db", db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no token "tok_nope" \(see: calsync token list\)/);
  });
});
