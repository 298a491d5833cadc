// Does a backup hold up the server? A 1 GiB SQLite database (calsync's schema plus a filler table of
// random bytes, so the copy has a gigabyte to read and write) is served by `calsync serve --backup-dir`,
// whose first backup starts with it; this process polls `GET /healthz` every 20 ms meanwhile, and again
// during a `calsync db backup` run beside the server, timing each answer. The target (CONTRACT §19,
// issue 39): no request waits more than 50 ms.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { openStore } from "../dist/store/index.js";
import { Database } from "../dist/store/sqlite/driver.js";
import { percentile, round } from "./common.js";

const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));
const POLL_EVERY_MS = 20;
const MIB = 1024 * 1024;

/** Builds the database, then measures /healthz during serve's own backup and during `calsync db backup`. */
export async function runBackup({ sizeMiB = 1024 } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-bench-backup-"));
  const agent = new Agent({ connections: 50 });
  try {
    const db = path.join(dir, "calsync.db");
    const built = performance.now();
    await buildDatabase(db, sizeMiB);
    const buildS = (performance.now() - built) / 1000;
    const bytes = statSync(db).size + (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);

    const backups = path.join(dir, "backups");
    const server = await startServe(["--db", db, "--backup-dir", backups, "--backup-keep", "1"]);
    let scheduled;
    let cli;
    let idle;
    let firstRequestMs;
    try {
      // serve's first backup starts with it. The first request to a process just started pays for its cold
      // start (modules, JIT, the connection) with or without a backup: timed apart, before the polls.
      const first = performance.now();
      await request(`${server.url}/healthz`, { dispatcher: agent }).then((res) => res.body.dump());
      firstRequestMs = round(performance.now() - first, 1);
      // The idle floor is measured after both backups, on the same server.
      scheduled = await pollWhile(server.url, agent, () => existsSync(backups) && readdirSync(backups).some((name) => name.endsWith(".db")));
      const copy = path.join(dir, "cli-backup.db");
      const child = runCli(["db", "backup", "--db", db, "--to", copy]);
      let exited = false;
      void child.then(() => (exited = true));
      cli = await pollWhile(server.url, agent, () => exited);
      const { code, stderr } = await child;
      if (code !== 0) throw new Error(`calsync db backup exited ${code}: ${stderr}`);
      // The floor of the same run: the same polls for 5 s with no backup going, on this machine as loaded now.
      const until = performance.now() + 5_000;
      idle = await pollWhile(server.url, agent, () => performance.now() > until);
    } finally {
      await server.stop();
    }
    const checks = [
      { ok: scheduled.failed === 0 && cli.failed === 0, what: `every /healthz during the backups answered 200 (${scheduled.failed + cli.failed} did not)` },
      { ok: scheduled.polls > 10 && cli.polls > 10, what: `the backups lasted long enough to be measured (${scheduled.polls} and ${cli.polls} polls)` },
    ];
    return { databaseMiB: round(bytes / MIB, 0), buildS: round(buildS, 1), pollEveryMs: POLL_EVERY_MS, firstRequestMs, idle, scheduled, cli, maxMs: Math.max(scheduled.maxMs, cli.maxMs), checks };
  } finally {
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** calsync's schema with one owner, property and calendar, and `sizeMiB` of filler in 1 MiB rows. */
async function buildDatabase(file, sizeMiB) {
  const store = await openStore(file);
  const owner = await store.createOwner("Backup");
  const property = await store.createProperty(owner.id, "Big file");
  await store.createCalendar({ propertyId: property.id, url: "https://example.com/feed.ics", source: "airbnb" });
  await store.close();
  const db = new Database(file);
  try {
    db.exec("CREATE TABLE bench_filler (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL)");
    const insert = db.prepare("INSERT INTO bench_filler (bytes) VALUES (randomblob(?))");
    for (let written = 0; written < sizeMiB; written += 64) {
      db.transaction(() => {
        for (let i = 0; i < 64 && written + i < sizeMiB; i++) insert.run(MIB);
      })();
    }
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** Polls /healthz every 20 ms until `done()`; the latencies of those polls. */
async function pollWhile(url, agent, done) {
  const latencies = [];
  const at = [];
  let failed = 0;
  const pending = new Set();
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > 600_000) throw new Error("backup took over 10 minutes");
    const sent = performance.now();
    const p = request(`${url}/healthz`, { dispatcher: agent })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode !== 200) failed++;
      })
      .catch(() => failed++)
      .finally(() => {
        latencies.push(performance.now() - sent);
        at.push(sent - started);
        pending.delete(p);
      });
    pending.add(p);
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
  await Promise.all(pending);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    seconds: round((performance.now() - started) / 1000, 1),
    polls: latencies.length,
    failed,
    p50Ms: round(percentile(sorted, 50), 1),
    p99Ms: round(percentile(sorted, 99), 1),
    maxMs: round(sorted.at(-1) ?? 0, 1),
    // When the slowest poll was sent (s after the first): a stall at the start is the server's, not the copy's.
    maxAtS: round((at[latencies.indexOf(sorted.at(-1))] ?? 0) / 1000, 2),
  };
}

function startServe(args) {
  const child = spawn(process.execPath, [BIN, "serve", "--host", "127.0.0.1", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) {
        resolve({
          url: stdout.split("\n")[0].trim(),
          async stop() {
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

function runCli(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}
