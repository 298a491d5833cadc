// Exit codes of many short CLI runs on every maintained Node line: better-sqlite3 12 aborted now and then
// at exit on Node 24 (exit 134, `Assertion failed: (env) != nullptr`) after a command had printed its
// output, 14 times in 45 runs of `conflicts`. Not a timing: every run of `conflicts`, `export` and
// `sync --local` (one calendar on a loopback feed) must exit 0, `runs` times each, on each line.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { tempStore } from "./common.js";
import { nodeLines } from "./node-lines.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));
const FEED = readFileSync(new URL("../test/fixtures/airbnb.ics", import.meta.url));

/** Runs each command `runs` times on each line (`lines`, default all); answers the exit codes seen and a check per line. */
export async function runExitLoop({ runs = 50, lines: wanted } = {}) {
  const server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/calendar" }).end(FEED));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { store, dispose } = await tempStore();
  try {
    const owner = await store.createOwner("Ann");
    const property = await store.createProperty(owner.id, "Loft");
    await store.createCalendar({ propertyId: property.id, url: `http://127.0.0.1:${server.address().port}/airbnb.ics`, source: "airbnb" });
    const db = ["--db", store.path];
    const commands = {
      conflicts: ["conflicts", ...db],
      export: ["export", "--property", property.id, ...db],
      "sync --local": ["sync", "--local", "--allow-private-networks", ...db],
    };
    const lines = [];
    for (const { line, node } of nodeLines(wanted)) {
      const exits = Object.fromEntries(Object.keys(commands).map((name) => [name, {}]));
      let firstFailure;
      for (let i = 0; i < runs; i++) {
        for (const [name, args] of Object.entries(commands)) {
          const { code, signal, stderr } = await run(node, args);
          const key = signal ?? String(code);
          exits[name][key] = (exits[name][key] ?? 0) + 1;
          if (key !== "0") firstFailure ??= `${name} → ${key}: ${stderr.trim().split("\n").slice(-2).join(" / ")}`;
        }
      }
      lines.push({ line, node, exits, firstFailure: firstFailure ?? null });
    }
    return {
      runs,
      lines,
      checks: lines.map(({ line, firstFailure }) => ({
        ok: firstFailure === null,
        what: `Node ${line}: ${runs} runs each of conflicts, export and sync --local exited 0${firstFailure ? ` (${firstFailure})` : ""}`,
      })),
    };
  } finally {
    await dispose();
    server.close();
  }
}

/** Runs `node BIN …args` to its end; its exit code or signal, and the tail of its stderr. */
function run(node, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "" } });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}
