// CPU by phase from the V8 profiles of a `calsync serve` process (main thread and parse workers, from
// node --cpu-prof): each sample goes to the phase of the nearest frame on its stack that is calsync's
// own or a dependency's, so Node's internals (sockets, crypto, streams) count for whoever called them.
// Without any hook in the engine: the normal path runs as it ships.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Phases in report order: `run` is calsync's own work around the calendars (the server, the engine's
 * run, leases, outbox and mail workers); `other` is what no calsync or dependency frame called
 * (garbage collection, module loading at start-up).
 */
export const PHASES = ["fetch", "decodeHash", "parse", "diff", "write", "run", "other"];

// Checked in order against a frame's URL; the first match names its phase.
const RULES = [
  ["fetch", /node_modules\/undici\/|\/engine\/(fetch-|feed-exchange|undici-agent|host-backoff|network-guard|feed-url)/],
  ["decodeHash", /\/engine\/(feed-body|feed-bytes|parse-transfer|control-characters)/],
  ["parse", /node_modules\/(node-ical|rrule|luxon|moment|@js-temporal|temporal-polyfill|piscina)|\/engine\/(parse-|content-lines|canonical-lines|zoned-times|wall-|time-zones|vtimezone|zone-rules|recurrence|rrule-text|rdate-periods|unreadable-events|feed-zones|feed-reading|strict-date|uid|summary-words|channels|local-date)/],
  ["diff", /\/engine\/(diff|echoes|conflicts|settled-conflicts|reissued|nights|turnover-changes|channel-status)/],
  ["write", /\/store\/|node_modules\/(better-sqlite3|pg|pg-protocol|pg-pool|pg-types|postgres-)/],
];

/** Sums the self time of every .cpuprofile under `dir` by phase; milliseconds, idle excluded. */
export function phasesOfProfiles(dir) {
  const totals = Object.fromEntries(PHASES.map((phase) => [phase, 0]));
  let files = [];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"));
  } catch {
    return { files: 0, ms: totals };
  }
  for (const name of files) addProfile(JSON.parse(readFileSync(path.join(dir, name), "utf8")), totals);
  for (const phase of PHASES) totals[phase] = Math.round(totals[phase]);
  return { files: files.length, ms: totals };
}

function addProfile(profile, totals) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const phaseOf = new Map();
  const resolve = (id) => {
    if (phaseOf.has(id)) return phaseOf.get(id);
    const { callFrame } = byId.get(id);
    let phase = null;
    // A parse worker blocked in Atomics.wait for its next task is sampled as running JS: it is idle.
    if (callFrame.functionName === "(idle)" || (callFrame.functionName === "atomicsWaitLoop" && callFrame.url.includes("piscina"))) phase = "idle";
    else if (/node_modules\/|\/dist\//.test(callFrame.url)) phase = RULES.find(([, pattern]) => pattern.test(callFrame.url))?.[0] ?? "run";
    else if (parent.has(id)) phase = resolve(parent.get(id));
    phaseOf.set(id, phase ?? "other");
    return phase ?? "other";
  };
  profile.samples.forEach((id, i) => {
    const phase = resolve(id);
    if (phase !== "idle") totals[phase] += (profile.timeDeltas[i] ?? 0) / 1000;
  });
}
