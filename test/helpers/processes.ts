// The built CLI as real processes that run side by side: `calsync serve` instances and `calsync sync --local`
// runs on one database, as cron, a server and a second instance would be.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "bin/calsync.js");

/** A running `calsync …` child process. */
export interface CalsyncProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts `calsync ...argv` with only PATH, loopback feeds allowed and `env` as its environment. */
export function startCalsync(argv: string[], env: Record<string, string> = {}): CalsyncProcess {
  const child = spawn(process.execPath, [bin, ...argv], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", CALSYNC_ALLOW_PRIVATE_NETWORKS: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** A `calsync serve` process that is listening. */
export interface ServeProcess extends CalsyncProcess {
  url: string;
  /** SIGTERM, then waits for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Starts `calsync serve --host 127.0.0.1 --port 0 ...argv` and resolves once it printed its URL. */
export async function startServe(argv: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const process_ = startCalsync(["serve", "--host", "127.0.0.1", "--port", "0", ...argv], env);
  const url = await new Promise<string>((resolve, reject) => {
    process_.child.stdout!.on("data", () => {
      const line = process_.stdout().split("\n")[0];
      if (process_.stdout().includes("\n") && line) resolve(line.trim());
    });
    void process_.exited.then((code) => reject(new Error(`serve exited (${code}) before printing its URL:\n${process_.stderr()}`)));
  });
  return {
    ...process_,
    url,
    async stop() {
      if (process_.child.exitCode !== null || process_.child.signalCode !== null) return;
      const timer = setTimeout(() => process_.child.kill("SIGKILL"), 10_000);
      process_.child.kill("SIGTERM");
      await process_.exited;
      clearTimeout(timer);
    },
  };
}

/** `POST /api/v1/calendars/sync` on `baseUrl` with `token`. */
export function postSync(baseUrl: string, token: string): Promise<Response> {
  return fetch(`${baseUrl}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });
}
