// Usage errors and help: exit 2, a one-line reason and a help hint on stderr, nothing on stdout.
import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers/cli.js";

const tmp = tempDir();
afterAll(() => tmp.remove());

/** Asserts the shape of every usage error: exit 2, reason + hint on stderr, stdout empty. */
function expectUsageError(result: { code: number; stdout: string; stderr: string }, reason: RegExp, hint: string) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(reason);
  expect(result.stderr).toContain(`(run '${hint} --help' for usage)`);
}

describe("calsync usage errors", () => {
  it("rejects an unknown flag with exit 2 and the command's help hint", async () => {
    const result = await runCli(["owner", "list", "--bogus", "--db", tmp.db()]);
    expectUsageError(result, /^error: unknown option '--bogus'/, "calsync owner list");
  });

  it("rejects a missing argument", async () => {
    const result = await runCli(["owner", "add", "--db", tmp.db()]);
    expectUsageError(result, /missing required argument 'name'/, "calsync owner add");
  });

  it("rejects excess arguments", async () => {
    const result = await runCli(["property", "remove", "prp_1", "prp_2", "--db", tmp.db()]);
    expectUsageError(result, /too many arguments/, "calsync property remove");
  });

  it("rejects a missing required option", async () => {
    const result = await runCli(["calendar", "add", "--property", "prp_1", "--db", tmp.db()]);
    expectUsageError(result, /required option '--url <url>' not specified/, "calsync calendar add");
  });

  it("rejects an unknown command and suggests a close one", async () => {
    const result = await runCli(["owners", "list"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/unknown command 'owners'/);
    expect(result.stderr).toMatch(/Did you mean owner\?/);
  });

  it("rejects a calendar source that is not a channel", async () => {
    const args = ["calendar", "add", "--property", "prp_1", "--url", "https://example.com/a.ics", "--source", "myspace"];
    const result = await runCli([...args, "--db", tmp.db()]);
    expectUsageError(result, /Allowed choices are airbnb, booking, vrbo/, "calsync calendar add");
  });

  it("rejects a feed URL that is not http(s) or webcal", async () => {
    const args = ["calendar", "add", "--property", "prp_1", "--url", "ftp://example.com/a.ics"];
    const result = await runCli([...args, "--db", tmp.db()]);
    expectUsageError(result, /^error: --url must be an http:\/\/, https:\/\/ or webcal:\/\/ address/, "calsync calendar add");
  });

  it("rejects text that is not a URL as --url", async () => {
    const result = await runCli(["calendar", "add", "--property", "p", "--url", "not a url", "--db", tmp.db()]);
    expectUsageError(result, /--url is not a valid URL/, "calsync calendar add");
  });

  it("rejects a timeout that is not a number of milliseconds", async () => {
    const result = await runCli(["sync", "--local", "--timeout", "soon", "--db", tmp.db()]);
    expectUsageError(result, /'--timeout <ms>' argument 'soon' is invalid/, "calsync sync");
  });

  it("rejects an --expires-in that is not a duration", async () => {
    const result = await runCli(["token", "create", "--expires-in", "forever", "--db", tmp.db()]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("(run 'calsync token create --help' for usage)");
  });

  it("rejects an --expires-in beyond 100 years (PostgreSQL stores no year past 9999), creating nothing", async () => {
    const db = tmp.db();
    expect((await runCli(["owner", "add", "Ann", "--db", db])).code).toBe(0);
    for (const lifetime of ["3000000d", "99999999d"]) {
      const result = await runCli(["token", "create", "--expires-in", lifetime, "--db", db]);
      expectUsageError(result, /--expires-in .* at most 36500d \(100 years\)/, "calsync token create");
    }
    expect((await runCli(["token", "list", "--json", "--db", db])).stdout.trim()).toBe("[]");
  });

  it("rejects local-only flags on a remote sync", async () => {
    for (const flag of ["--dry-run", "--force", "--allow-private-networks"]) {
      const result = await runCli(["sync", flag]);
      expectUsageError(result, new RegExp(`^error: ${flag} only applies with --local`), "calsync sync");
    }
    const withDb = await runCli(["sync", "--db", tmp.db()]);
    expectUsageError(withDb, /--db only applies with --local/, "calsync sync");
  });

  it("rejects remote-only flags on a local sync", async () => {
    const result = await runCli(["sync", "--local", "--base-url", "http://127.0.0.1:1", "--db", tmp.db()]);
    expectUsageError(result, /^error: --base-url does not apply to --local/, "calsync sync");
  });

  it("asks for --owner when the database has several owners", async () => {
    const db = tmp.db();
    await runCli(["owner", "add", "Ann", "--db", db]);
    await runCli(["owner", "add", "Bob", "--db", db]);
    const result = await runCli(["property", "add", "Loft", "--db", db]);
    expectUsageError(result, /2 owners in this database: choose one with --owner/, "calsync property add");
  });

  it("refuses fetch limits that are not positive whole numbers, before opening anything", async () => {
    for (const flag of ["--fetch-concurrency", "--fetch-per-host", "--owner-fetch-concurrency", "--owner-fetch-per-host"]) {
      for (const value of ["0", "-1", "2.5", "many"]) {
        const result = await runCli(["serve", flag, value, "--db", ":memory:"]);
        expect(result.code, `${flag} ${value}`).toBe(2);
        expect(result.stderr, `${flag} ${value}`).toContain("expected a positive whole number");
      }
    }
    const help = await runCli(["serve", "--help"]);
    for (const flag of ["--fetch-concurrency <n>", "--fetch-per-host <n>", "--owner-fetch-concurrency <n>", "--owner-fetch-per-host <n>"]) {
      expect(help.stdout).toContain(flag);
    }
  });

  it("shows the group's help on stderr when a sub-command is missing", async () => {
    const result = await runCli(["token"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/Usage: calsync token \[options\] \[command\]/);
  });
});

describe("calsync help", () => {
  it("lists every command on stdout and exits 0", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    for (const command of ["sync", "serve", "owner", "token", "property", "calendar", "reservations", "demo"]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
    expect(result.stdout).toContain("calsync sync --local");
  });

  it("groups sync's flags by mode and documents the exit codes", async () => {
    const result = await runCli(["sync", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Local sync (with --local):");
    expect(result.stdout).toContain("Remote sync (without --local):");
    expect(result.stdout).toMatch(/--dry-run/);
    expect(result.stdout).toMatch(/Exit codes: 0 all calendars ok, 3 some failed, 4 authentication failed,/);
  });

  it("documents --json and --db on every data command", async () => {
    const commands = [
      ["owner", "add"], ["owner", "list"], ["token", "create"], ["token", "list"], ["token", "revoke"],
      ["property", "add"], ["property", "list"], ["property", "remove"],
      ["calendar", "add"], ["calendar", "list"], ["calendar", "remove"], ["reservations"], ["sync"],
    ];
    for (const command of commands) {
      const result = await runCli([...command, "--help"]);
      expect(result.code, command.join(" ")).toBe(0);
      expect(result.stdout, command.join(" ")).toMatch(/--json\s+print one JSON document to stdout/);
      expect(result.stdout, command.join(" ")).toMatch(/--db <path>\s+SQLite database file/);
    }
  });

  it("says which URLs --allow-private-networks lets reach private addresses: feeds, webhooks, or both for serve", async () => {
    const expected: Array<[string[], string]> = [
      [["calendar", "test"], "let feed URLs reach"],
      [["webhook", "add"], "let webhook URLs reach"],
      [["webhook", "deliver"], "let webhook URLs reach"],
      [["serve"], "let feed and webhook URLs reach"],
    ];
    for (const [command, text] of expected) {
      const result = await runCli([...command, "--help"]);
      expect(result.stdout.replace(/\s+/g, " "), command.join(" ")).toContain(`--allow-private-networks ${text}`);
    }
  });

  it("prints the version", async () => {
    const result = await runCli(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
