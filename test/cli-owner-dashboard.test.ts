// `calsync owner add --email`, `owner update --email` and `owner invite`: the CLI side of dashboard
// accounts, in-process on real SQLite files, and the invite link opened on a real server.
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import { runCli, tempDir } from "./helpers/cli.js";
import { csrfOf } from "./helpers/dashboard-client.js";

const tmp = tempDir();
afterAll(() => tmp.remove());

async function json<T = any>(db: string, ...argv: string[]): Promise<T> {
  const result = await runCli([...argv, "--json", "--db", db]);
  expect(result.code, `${argv.join(" ")}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe("owner emails", () => {
  it("adds an owner with an email (stored lower-case) and lists it; without one the JSON stays {id, name}", async () => {
    const db = tmp.db();
    const ann = await json(db, "owner", "add", "Ann", "--email", " Ann@Example.COM ");
    expect(ann).toEqual({ id: expect.stringMatching(/^own_/), name: "Ann", email: "ann@example.com" });
    const bob = await json(db, "owner", "add", "Bob");
    expect(bob).toEqual({ id: expect.any(String), name: "Bob" });
    expect(await json(db, "owner", "list")).toEqual([ann, bob]);
    const table = await runCli(["owner", "list", "--db", db]);
    expect(table.stdout).toMatch(/Ann\s+ann@example\.com/);
  });

  it("refuses an email another owner signs in with (exit 1) and one that is no address (usage, exit 2)", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann", "--email", "ann@example.com");
    const taken = await runCli(["owner", "add", "Ann Two", "--email", "ANN@example.com", "--db", db]);
    expect([taken.code, taken.stderr]).toEqual([1, expect.stringContaining("ann@example.com is already the email of owner")]);
    const bad = await runCli(["owner", "add", "Cem", "--email", "not-an-address", "--db", db]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--email must be one address")]);
    expect((await json<unknown[]>(db, "owner", "list")).length).toBe(1);
  });

  it.each(["<ann@example.com>", "Ann <ann@example.com>", "ann@example.com, bob@example.com", '"ann smith"@example.com', "ann@example.com>", "ann@@example.com"])(
    "takes only one bare address: %j is a usage error (exit 2) on add and update, nothing stored",
    async (given) => {
      const db = tmp.db();
      const ann = await json(db, "owner", "add", "Ann", "--email", "ann@old.example");
      const added = await runCli(["owner", "add", "Bob", "--email", given, "--db", db]);
      const updated = await runCli(["owner", "update", ann.id, "--email", given, "--db", db]);
      for (const result of [added, updated]) {
        expect(result.code).toBe(2);
        expect(result.stderr).toContain("--email must be one address such as ann@example.com");
        expect(result.stderr).toMatch(/run 'calsync owner (add|update) --help' for usage/);
      }
      expect(await json(db, "owner", "list")).toEqual([ann]);
    },
  );

  it("updates an owner's email by id or name", async () => {
    const db = tmp.db();
    const ann = await json(db, "owner", "add", "Ann");
    expect(await json(db, "owner", "update", ann.id, "--email", "ann@new.example")).toEqual({ id: ann.id, name: "Ann", email: "ann@new.example" });
    expect(await json(db, "owner", "update", "Ann", "--email", "ann@newer.example")).toMatchObject({ email: "ann@newer.example" });
    await json(db, "owner", "add", "Bob", "--email", "bob@example.com");
    const taken = await runCli(["owner", "update", ann.id, "--email", "bob@example.com", "--db", db]);
    expect(taken.code).toBe(1);
    const missing = await runCli(["owner", "update", ann.id, "--db", db]);
    expect(missing.code).toBe(2);
  });
});

describe("owner invite", () => {
  it("prints a one-time link valid 72 hours that opens the set-password page", async () => {
    const db = tmp.db();
    const ann = await json(db, "owner", "add", "Ann", "--email", "ann@example.com");
    const before = Date.now();
    const invite = await json(db, "owner", "invite", "--base-url", "https://cal.example.com/calsync/");
    expect(invite).toEqual({ ownerId: ann.id, url: expect.stringMatching(/^https:\/\/cal\.example\.com\/calsync\/invite\/[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(String) });
    const hours = (Date.parse(invite.expiresAt) - before) / 3_600_000;
    expect(hours).toBeGreaterThan(71.99);
    expect(hours).toBeLessThanOrEqual(72.01);

    const text = await runCli(["owner", "invite", "--owner", "Ann", "--db", db], { env: { CALSYNC_BASE_URL: "http://127.0.0.1:9000" } });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^http:\/\/127\.0\.0\.1:9000\/invite\/[A-Za-z0-9_-]{43}\n$/);
    expect(text.stderr).toContain("One-time link for Ann <ann@example.com>");

    const store = await openStore(db);
    try {
      const app = createApp({ store });
      const page = await app.fetch(new Request(`http://calsync.test${new URL(text.stdout.trim()).pathname}`));
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("Welcome, Ann");
      expect(csrfOf(html)).toBeTruthy();
    } finally {
      await store.close();
    }
  });

  it("needs the owner's email first (exit 1 naming the command to set it)", async () => {
    const db = tmp.db();
    const bob = await json(db, "owner", "add", "Bob");
    const result = await runCli(["owner", "invite", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`calsync owner update ${bob.id} --email E`);
  });

  it("refuses a base URL that is not http(s) as a usage error", async () => {
    const db = tmp.db();
    await json(db, "owner", "add", "Ann", "--email", "ann@example.com");
    const result = await runCli(["owner", "invite", "--base-url", "ftp://x", "--db", db]);
    expect(result.code).toBe(2);
  });
});
