// The self-hosting guide's PostgreSQL backup (CONTRACT §19) run as written: its pg_dump and pg_restore lines,
// read from docs/self-hosting.md so the guide cannot drift, dump a calsync database (owners, calendars,
// reservations, tokens) and restore it into a fresh one and over the original, which the real CLI then
// reads whole and syncs on.
// The server is a PostgreSQL 15 of its own (helpers/postgres15.ts), which Debian's pg_dump 15 can dump.
import { execFile, execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runBin } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { codeBlocks, shellWords } from "./helpers/doc-blocks.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startPostgres15 } from "./helpers/postgres15.js";

const { tmp, feeds } = useCliFixtures({ built: true });

/** The guide's database URL, which each line's copy here replaces by the test server's. */
const DOC_URL = "postgres://calsync:…@db.example/calsync";

function pgDumpInstalled(): boolean {
  try {
    execFileSync("pg_dump", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The guide's `pg_dump …` and `pg_restore …` lines, as words. */
function guideLines(): { dump: string[]; restore: string[] } {
  const block = codeBlocks("docs/self-hosting.md").find((b) => b.lang === "sh" && /^pg_dump /m.test(b.code) && /^pg_restore /m.test(b.code));
  if (!block) throw new Error("docs/self-hosting.md has no sh block with its pg_dump and pg_restore lines");
  const lines = block.code.split("\n").filter((line) => line.trim() !== "").map(shellWords);
  const dump = lines.filter((words) => words[0] === "pg_dump");
  const restore = lines.filter((words) => words[0] === "pg_restore");
  expect(lines.length, "the block holds the two lines and nothing else").toBe(2);
  return { dump: dump[0]!, restore: restore[0]! };
}

/** Runs a guide line in `cwd` with `DOC_URL` replaced by `url`, as a shell would have split it. */
function runLine(words: string[], url: string, cwd: string): Promise<{ code: number; output: string }> {
  const [command, ...args] = words.map((word) => word.replace(DOC_URL, url));
  return new Promise((resolve) =>
    execFile(command!, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}${error && typeof error.code !== "number" ? error.message : ""}` }),
    ),
  );
}

const hasPgDump = pgDumpInstalled();
if (!hasPgDump) console.warn("test/postgres-dump.test.ts is skipped: no pg_dump on PATH (Debian: apt-get install postgresql-client-15; .ci/run does)");

describe.skipIf(!hasPgDump)("the guide's pg_dump and pg_restore lines", () => {
  it("copy a calsync database whole: the CLI reads the same owners, reservations and tokens from the restored one, and syncs on it", async () => {
    const { dump, restore } = guideLines();
    expect(dump.some((word) => word.includes(DOC_URL)) && restore.some((word) => word.includes(DOC_URL)), `both lines name ${DOC_URL}`).toBe(true);
    const server = await startPostgres15();
    try {
      await server.createDatabase("calsync");
      await server.createDatabase("calsync_restored");
      const source = { CALSYNC_DB: server.url("calsync"), CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" };
      const restored = { ...source, CALSYNC_DB: server.url("calsync_restored") };
      const cli = async (argv: string[], env: Record<string, string>) => {
        const result = await runBin(argv, env);
        expect(result.code, `calsync ${argv.join(" ")}\n${result.stderr}`).toBe(0);
        return result.stdout;
      };

      const feed = feeds.url("/pg-dump-airbnb.ics", { body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }, { uid: "a2", start: day(20), end: day(22), summary: "Reserved" }]) });
      await cli(["owner", "add", "Ann Smith"], source);
      await cli(["owner", "add", "Bo Lee"], source);
      const property = /prp_\w+/.exec(await cli(["property", "add", "Sea View Loft", "--owner", "Ann Smith", "--timezone", "Europe/Lisbon"], source))![0];
      await cli(["calendar", "add", "--property", property, "--url", feed], source);
      await cli(["token", "create", "--owner", "Ann Smith", "--name", "laptop"], source);
      await cli(["sync", "--local", "--owner", "Ann Smith"], source);
      const read = (env: Record<string, string>) =>
        Promise.all([
          cli(["owner", "list", "--json"], env),
          cli(["calendar", "list", "--json"], env),
          cli(["reservations", "--json"], env),
          cli(["token", "list", "--json"], env),
        ]).then((outputs) => outputs.map((output) => JSON.parse(output) as unknown));
      const before = await read(source);
      for (const [part, text] of [[0, "Bo Lee"], [1, feed], [2, day(20)], [3, "laptop"]] as const) expect(JSON.stringify(before[part])).toContain(text);

      const dumped = await runLine(dump, server.url("calsync"), tmp.dir);
      expect(dumped.code, dumped.output).toBe(0);
      const file = dump.find((word) => word.startsWith("--file="))!.slice("--file=".length);
      expect(statSync(`${tmp.dir}/${file}`).size).toBeGreaterThan(0);
      const put = await runLine(restore, server.url("calsync_restored"), tmp.dir);
      expect(put.code, put.output).toBe(0);

      expect(await read(restored)).toEqual(before);
      // The restored sequences and constraints take new writes: a sync stores the feed's new stay.
      feeds.setRoute("/pg-dump-airbnb.ics", { body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }, { uid: "a2", start: day(20), end: day(22), summary: "Reserved" }, { uid: "a3", start: day(30), end: day(33), summary: "Reserved" }]) });
      await cli(["sync", "--local", "--owner", "Ann Smith"], restored);
      expect(JSON.stringify(JSON.parse(await cli(["reservations", "--json"], restored)))).toContain(day(30));

      // Over the database the dump came from, after later writes there: back to the moment of the dump.
      await cli(["owner", "add", "Cy Park"], source);
      await cli(["sync", "--local", "--owner", "Ann Smith"], source);
      expect(JSON.stringify(JSON.parse(await cli(["reservations", "--json"], source)))).toContain(day(30));
      const over = await runLine(restore, server.url("calsync"), tmp.dir);
      expect(over.code, over.output).toBe(0);
      expect(await read(source)).toEqual(before);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
