// The test run itself: a failing test must fail `npm test`. The embedded PostgreSQL of test/setup/postgres.ts
// brings async-exit-hook, whose `beforeExit` handler once ended vitest with exit code 0 whatever failed.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/cli.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tmp = tempDir();
afterAll(() => tmp.remove());

/** Runs vitest on `dir`; resolves with its exit code and what it printed. */
function runVitest(dir: string): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  // The embedded server is what is under test, not a given one.
  delete env.CALSYNC_TEST_DATABASE_URL;
  const child = spawn(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

describe("the test run", () => {
  it("exits non-zero when a test fails, with the embedded PostgreSQL started", async () => {
    writeFileSync(
      path.join(tmp.dir, "vitest.config.mjs"),
      `export default { test: { globals: true, include: ["*.check.js"], globalSetup: [${JSON.stringify(path.join(root, "test/setup/postgres.ts"))}] } };\n`,
    );
    writeFileSync(path.join(tmp.dir, "fails.check.js"), `it("fails", () => expect(1).toBe(2));\n`);
    const run = await runVitest(tmp.dir);
    // It did run the test (the set-up started PostgreSQL), and said so in its exit code.
    expect(run.output).toMatch(/Tests\s+1 failed/);
    expect(run.code).toBe(1);
  }, 60_000);
});
