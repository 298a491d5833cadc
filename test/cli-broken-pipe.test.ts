// `calsync … | head`: a reader that closes early ends the output quietly, with the command's own exit code.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../bin/calsync.js");
const { tmp, feeds } = useCliFixtures({ built: true });

/**
 * Runs the built CLI with the read end of its stdout (or stderr) closed before it starts, as `head`
 * does once it has its lines; resolves with the exit code and what the other stream received.
 */
function runWithClosedReader(argv: string[], closed: "stdout" | "stderr"): Promise<{ code: number | null; signal: string | null; other: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child[closed].destroy();
    const open = closed === "stdout" ? child.stderr : child.stdout;
    let other = "";
    open.setEncoding("utf8").on("data", (chunk: string) => (other += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, other });
    });
  });
}

/** A database with one synced property: two calendars, one of them failing (so `sync` exits 3). */
async function syncedDatabase(): Promise<string> {
  const db = tmp.db();
  const env = { CALSYNC_DB: db };
  expect((await runCli(["owner", "add", "Ann"], { env })).code).toBe(0);
  const property = JSON.parse((await runCli(["property", "add", "Loft", "--json"], { env })).stdout) as { id: string };
  const events = Array.from({ length: 40 }, (_, i) => ({ uid: `s${i}`, start: day(2 + i * 3), end: day(4 + i * 3), summary: "Reserved" }));
  const good = feeds.url("/pipe/good.ics", { body: buildIcs(events) });
  const bad = feeds.url("/pipe/bad.ics", { status: 503 });
  expect((await runCli(["calendar", "add", "--property", property.id, "--source", "airbnb", "--url", good], { env })).code).toBe(0);
  expect((await runCli(["calendar", "add", "--property", property.id, "--source", "vrbo", "--url", bad], { env })).code).toBe(0);
  return db;
}

describe("a reader that closes early", () => {
  it("ends --help quietly with exit 0", async () => {
    const result = await runWithClosedReader(["--help"], "stdout");
    expect(result).toEqual({ code: 0, signal: null, other: "" });
  });

  it("ends reservations and a partly failing sync quietly, each with its own exit code", async () => {
    const db = await syncedDatabase();
    const sync = await runWithClosedReader(["sync", "--local", "--allow-private-networks", "--json", "--db", db], "stdout");
    expect(sync).toEqual({ code: 3, signal: null, other: "" });
    // The closed pipe cost nothing but the output: the sync was written.
    const stored = JSON.parse((await runCli(["reservations", "--json", "--db", db])).stdout) as unknown[];
    expect(stored).toHaveLength(40);

    const reservations = await runWithClosedReader(["reservations", "--db", db], "stdout");
    expect(reservations).toEqual({ code: 0, signal: null, other: "" });
  });

  it("keeps a usage error's exit code when stderr is the closed stream", async () => {
    const result = await runWithClosedReader(["owners", "list"], "stderr");
    expect(result).toEqual({ code: 2, signal: null, other: "" });
  });
});
