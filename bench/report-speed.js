// The speed rows of issue 17 (start-up, CPU per calendar, RSS growth, /healthz while parsing, fetch
// overhead): their targets, where each value comes from in the results, and their lines of the table.
import { round } from "./common.js";
import { NODE_LINES } from "./node-lines.js";

/** Targets added by the speed work; report.js appends them to its own. */
export const SPEED_TARGETS = [
  ...NODE_LINES.flatMap((line) => [
    { id: `startupHelp${line}`, label: `Node ${line}: calsync --help ≤ 1.6 × node -e "import('commander')"`, bound: 1.6, unit: "×" },
    { id: `startupOwnerList${line}`, label: `Node ${line}: calsync owner list ≤ 2 × the same baseline`, bound: 2, unit: "×" },
  ]),
  { id: "firstSyncCpu", label: "first-sync CPU per 20-event calendar ≤ 1.3 ms", bound: 1.3, unit: "ms" },
  { id: "unchangedCpu", label: "unchanged re-sync CPU per calendar ≤ 0.3 ms", bound: 0.3, unit: "ms" },
  { id: "rssGrowth", label: "peak RSS growth N = 1000 → 5000 (first sync) < 15 %", bound: 15, unit: "%", strict: true },
  { id: "healthzBigP99", label: "/healthz p99 while parsing a 20,000-event feed < 50 ms", bound: 50, unit: "ms", strict: true },
  { id: "healthzDenseMax", label: "/healthz max while expanding a 43,800-occurrence series < 100 ms", bound: 100, unit: "ms", strict: true },
  { id: "fetchOverhead", label: "fetch CPU over bare undici.request ≤ 0.05 ms", bound: 0.05, unit: "ms" },
];

/** The value of each speed target (null when its part did not run). */
export function speedValues({ headline, rss, startup, stall, fetchOverhead }) {
  const peak = (n) => rss?.find((run) => run.n === n)?.memory.peakRssMiB;
  const [small, large] = [peak(1000), peak(5000)];
  return {
    ...Object.fromEntries(
      NODE_LINES.flatMap((line) => {
        const measured = startup?.lines.find((entry) => entry.line === line);
        return [[`startupHelp${line}`, measured?.help.ratio ?? null], [`startupOwnerList${line}`, measured?.ownerList.ratio ?? null]];
      }),
    ),
    firstSyncCpu: headline?.first.cpuMsPerCalendar ?? null,
    unchangedCpu: headline?.unchanged.cpuMsPerCalendar ?? null,
    rssGrowth: small && large ? round(((large - small) / small) * 100, 1) : null,
    healthzBigP99: stall?.big.workers.p99Ms ?? null,
    healthzDenseMax: stall?.dense.workers.maxMs ?? null,
    fetchOverhead: fetchOverhead ? Math.max(fetchOverhead.ok.overheadMs, fetchOverhead.notModified.overheadMs) : null,
  };
}

/** The speed sections of the stdout table, as lines. */
export function formatSpeed({ rss, startup, exits, stall, fetchOverhead }, { grid, fixed, ms }) {
  const out = [];
  if (startup) {
    out.push(`CLI start-up per Node line (median of ${startup.runs} fresh processes each, interleaved)`);
    out.push(
      ...grid(
        ["Node", "command", "wall", "× baseline"],
        startup.lines.flatMap(({ line, baselineMs, help, ownerList }) => [
          [line, `node -e "import('commander')"`, ms(baselineMs, 0), "1.000"],
          ["", "calsync --help", ms(help.ms, 0), fixed(help.ratio, 3)],
          ["", "calsync owner list", ms(ownerList.ms, 0), fixed(ownerList.ratio, 3)],
        ]),
      ),
      "",
    );
  }
  if (exits) {
    out.push(`Exit codes of ${exits.runs} runs of each command per Node line (code × runs; all 0 expected)`);
    const codes = (seen) => Object.entries(seen).map(([code, count]) => `${code} × ${count}`).join(", ");
    out.push(...grid(["Node", "conflicts", "export", "sync --local"], exits.lines.map(({ line, exits: e }) => [line, codes(e.conflicts), codes(e.export), codes(e["sync --local"])])), "");
  }
  if (rss?.length) {
    out.push("Peak RSS of a first sync (each N in its own process)");
    out.push(...grid(["N", "peak RSS"], rss.map((run) => [String(run.n), `${fixed(run.memory.peakRssMiB, 1)} MiB`])), "");
  }
  if (stall) {
    out.push(`/healthz from a second process every ${stall.pollEveryMs} ms while one owner syncs a huge feed (fresh database each)`);
    const row = (label, mode, run) => [label, mode, ms(run.syncMs, 0), String(run.polls), ms(run.p50Ms, 0), ms(run.p99Ms, 0), ms(run.maxMs, 0)];
    out.push(
      ...grid(
        ["feed", "parsing", "sync", "polls", "p50", "p99", "max"],
        [
          row(`${stall.bigFeedEvents} events, ${fixed(stall.bigFeedBytes / 2 ** 20, 1)} MiB`, "workers", stall.big.workers),
          ["", "event loop", ...row("", "", stall.big.inline).slice(2)],
          ...(stall.big.cli ? [["", "calsync serve", ...row("", "", stall.big.cli).slice(2)]] : []),
          row(`series, ${stall.denseOccurrences} occurrences`, "workers", stall.dense.workers),
          ["", "event loop", ...row("", "", stall.dense.inline).slice(2)],
        ],
      ),
      "",
    );
  }
  if (fetchOverhead) {
    const f = fetchOverhead;
    out.push(`Fetch CPU per feed, loopback (median of ${f.blocks} blocks of ${f.perBlock})`);
    out.push(
      ...grid(
        ["answer", "bare undici.request", "fetchFeed", "overhead"],
        [
          ["200, 20 events", ms(f.ok.bareMs, 3), ms(f.ok.engineMs, 3), ms(f.ok.overheadMs, 3)],
          ["304", ms(f.notModified.bareMs, 3), ms(f.notModified.engineMs, 3), ms(f.notModified.overheadMs, 3)],
        ],
      ),
      "",
    );
  }
  return out;
}
