// The SQLite driver follows the running Node (README "Requirements"): better-sqlite3 13 on Node ≥ 22, where
// 12 aborts at exit now and then on Node 24; 12 (the alias better-sqlite3-node20) on Node 20, where 13 crashes.
// .ci/run runs this file on Node 20, 22 and 24; bench/exit-loop.js runs the CLI 50 times a command per line.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Database, DRIVER_PACKAGE, driverEntry, NODE_MAJOR } from "../src/store/sqlite/driver.js";

/** The version in the package.json of the driver that was loaded. */
function loadedDriverVersion(): string {
  const packageJson = path.join(path.dirname(driverEntry), "..", "package.json");
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

describe("the SQLite driver of this Node line", () => {
  it(`is better-sqlite3 ${NODE_MAJOR >= 22 ? 13 : 12} on Node ${NODE_MAJOR}`, () => {
    expect(DRIVER_PACKAGE).toBe(NODE_MAJOR >= 22 ? "better-sqlite3" : "better-sqlite3-node20");
    expect(driverEntry).toContain(`${path.sep}node_modules${path.sep}${DRIVER_PACKAGE}${path.sep}`);
    expect(loadedDriverVersion().split(".")[0]).toBe(NODE_MAJOR >= 22 ? "13" : "12");
  });

  it("opens a database and answers a query", () => {
    const db = new Database(":memory:");
    try {
      expect(db.prepare("SELECT sqlite_version() AS v").pluck().get()).toMatch(/^3\.\d+/);
    } finally {
      db.close();
    }
  });
});
