// Runs the CLI the two ways tests need: in-process through run(), and as the built `bin/calsync.js`.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../src/cli/run.js";

/** What a user sees of one CLI run. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one run; `env` replaces the environment entirely, so no test reads the real user data directory. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Pretend stdout / stderr are terminals. */
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
}

/** Runs `calsync ...argv` in this process with collecting streams. */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: options.stdoutTTY ?? false },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: options.stderrTTY ?? false },
    env: options.env ?? {},
  });
  return { code, stdout, stderr };
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "bin/calsync.js");

/** True when `dist/` holds the built CLI (`npm test` builds it first). */
export function isBuilt(): boolean {
  return existsSync(path.join(root, "dist/cli/main.js"));
}

/** Runs the built `node bin/calsync.js ...argv` as a child process, with only `env` (plus PATH) as its environment. */
export function runBin(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, ...argv],
      { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/** A fresh directory for one test file's databases; call `remove()` in afterAll. */
export function tempDir(): { dir: string; db: (name?: string) => string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-cli-"));
  let count = 0;
  return {
    dir,
    db: (name = `db-${++count}`) => path.join(dir, `${name}.db`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
