// Prints the hottest functions of a V8 .cpuprofile (from `node bench/run.js --cpu-prof`) by self
// time, with their share of the samples:  node bench/profile-top.js FILE.cpuprofile [count]
import { readFileSync } from "node:fs";
import path from "node:path";

const [file, countText = "25"] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node bench/profile-top.js FILE.cpuprofile [count]\n");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
// Sample time deltas are in microseconds; each sample belongs to the node on top of the stack.
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const rows = new Map();
let total = 0;
for (const [id, us] of self) {
  const { callFrame: f } = byId.get(id);
  if (f.functionName === "(idle)") continue;
  total += us;
  const where = f.url ? `${shorten(f.url)}:${f.lineNumber + 1}` : "";
  const key = `${f.functionName || "(anonymous)"} ${where}`;
  rows.set(key, (rows.get(key) ?? 0) + us);
}
const top = [...rows].sort((a, b) => b[1] - a[1]).slice(0, Number(countText));
process.stdout.write(`busy ${(total / 1000).toFixed(0)} ms (idle excluded)\n`);
for (const [key, us] of top) {
  process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}\n`);
}

function shorten(url) {
  const p = url.replace(/^file:\/\//, "");
  const at = p.indexOf("node_modules/");
  return at >= 0 ? p.slice(at + "node_modules/".length) : path.relative(process.cwd(), p);
}
