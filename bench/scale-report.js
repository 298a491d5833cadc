// The scale series' figures against their floors, the growth from the smallest N to the largest, the
// targets of issue 40 (PASS/MISS), and the table run.js prints.
import { round } from "./common.js";
import { PHASES } from "./scale-phases.js";

const LABELS = { sqlite1: "SQLite, 1 instance", postgres2: "PostgreSQL, 2 instances" };

/** Adds ratios, growth and targets to the raw document of scale-series.js. */
export function scaleResults(doc) {
  const rows = doc.setups.map((setup) => {
    const floorMs = doc.floors[`${setup.n}x${setup.instances}`]?.ms ?? null;
    const roundOf = (r) => ({ ...r, ratio: floorMs ? round(r.ms / floorMs, 3) : null, msPerCalendar: round(r.ms / setup.n, 4) });
    return { ...setup, label: LABELS[setup.id], floorMs, first: roundOf(setup.rounds.first), unchanged: roundOf(setup.rounds.unchanged), rounds: undefined };
  });
  const growth = {};
  for (const id of Object.keys(LABELS)) {
    const mine = rows.filter((row) => row.id === id).sort((a, b) => a.n - b.n);
    if (mine.length < 2) continue;
    const [small, large] = [mine[0], mine[mine.length - 1]];
    // Per-calendar cost at the large N over the small N's: 1 is linear.
    const per = (pick) => round(pick(large) / pick(small), 3);
    growth[id] = {
      from: small.n,
      to: large.n,
      firstWallPerCalendar: per((r) => r.first.msPerCalendar),
      unchangedWallPerCalendar: per((r) => r.unchanged.msPerCalendar),
      firstCpuPerCalendar: per((r) => r.first.cpuMsPerCalendar),
      unchangedCpuPerCalendar: per((r) => r.unchanged.cpuMsPerCalendar),
      peakRss: per((r) => Math.max(...r.unchanged.peakRssMiB, ...r.first.peakRssMiB)),
      dbPer1000: per((r) => r.dbMiBPer1000),
    };
  }
  const largestPg = rows.filter((row) => row.id === "postgres2").sort((a, b) => b.n - a.n)[0];
  const pgGrowth = growth.postgres2;
  const target = (label, value, bound, n) => ({ label, value, bound, result: value == null ? "skipped" : value <= bound ? "PASS" : "MISS", n });
  const targets = [
    target("unchanged round, 2 PostgreSQL instances ≤ 1.3 × floor", largestPg?.unchanged.ratio, 1.3, largestPg?.n),
    target("peak RSS per instance ≤ 250 MiB", largestPg ? Math.max(...largestPg.first.peakRssMiB, ...largestPg.unchanged.peakRssMiB) : null, 250, largestPg?.n),
    target("unchanged round wall per calendar, smallest → largest N ≤ 1.15 × linear", pgGrowth?.unchangedWallPerCalendar, 1.15),
    target("unchanged CPU per calendar, smallest → largest N ≤ 1.15 × linear", pgGrowth?.unchangedCpuPerCalendar, 1.15),
    target("first-round CPU per calendar, smallest → largest N ≤ 1.15 × linear", pgGrowth?.firstCpuPerCalendar, 1.15),
  ];
  const checks = rows.flatMap((row) => row.checks.map((c) => ({ ...c, what: `${row.label} N=${row.n}: ${c.what}` })));
  for (const [key, f] of Object.entries(doc.floors)) checks.push({ ok: f.failures === 0, what: `floor ${key}: every fetch answered 200` });
  return { ...doc, rows, growth, targets, failedChecks: checks.filter((c) => !c.ok).map((c) => c.what) };
}

/** The table on stdout: one line per N and set-up, then growth, targets, failed checks. */
export function formatScale(results) {
  const lines = [`scale series (${results.options.latencyMs} ms latency, ${results.options.hosts} hosts, ${results.options.limits.concurrency} fetches per instance)`];
  const phaseHead = PHASES.join("/");
  lines.push(`N | set-up | floor s | first ×floor | unchanged ×floor | peak RSS MiB | DB MiB/1000 | CPU ms/cal first (${phaseHead}) | CPU ms/cal unchanged (same)`);
  for (const row of results.rows) {
    const rss = [...row.first.peakRssMiB.map((v, i) => Math.max(v, row.unchanged.peakRssMiB[i]))].join(" / ");
    const split = (r) => `${r.cpuMsPerCalendar} (${PHASES.map((p) => r.phases.msPerCalendar[p]).join("/")})`;
    lines.push(`${row.n} | ${row.label} | ${round(row.floorMs / 1000, 1)} | ${row.first.ratio} | ${row.unchanged.ratio} | ${rss} | ${row.dbMiBPer1000} | ${split(row.first)} | ${split(row.unchanged)}`);
  }
  for (const [id, g] of Object.entries(results.growth)) {
    lines.push(`growth ${LABELS[id]} ${g.from} → ${g.to} (per calendar, 1 = linear): first wall ${g.firstWallPerCalendar}, unchanged wall ${g.unchangedWallPerCalendar}, first CPU ${g.firstCpuPerCalendar}, unchanged CPU ${g.unchangedCpuPerCalendar}, peak RSS ${g.peakRss} (absolute), DB/1000 ${g.dbPer1000}`);
  }
  for (const t of results.targets) lines.push(`${t.result.padEnd(7)} ${t.label}${t.n ? ` (N = ${t.n})` : ""}: ${t.value ?? "—"}`);
  for (const l of results.load) lines.push(`load at ${l.at}: ${l.loadavg.join(", ")}`);
  for (const what of results.failedChecks) lines.push(`CHECK FAILED: ${what}`);
  return lines.join("\n");
}
