// The rows of issue 31: the sync as a user runs it (`calsync sync --local`, a child process, start-up
// included, 100 ms latency) beside the in-process one, and /healthz through `calsync serve` itself.
/** Targets measured from outside the process; report.js appends them to its own. */
export const CLI_TARGETS = [
  { id: "cliFirstSync", label: "CLI first sync ≤ 1.10 × floor (300 feeds, 100 ms)", bound: 1.1, unit: "×" },
  { id: "cliResync", label: "CLI unchanged re-sync ≤ 1.03 × floor (300 feeds, 100 ms)", bound: 1.03, unit: "×" },
  { id: "healthzCliP99", label: "/healthz p99 through calsync serve, 20,000-event feed < 50 ms", bound: 50, unit: "ms", strict: true },
];

/** The value of each CLI target (null when its part did not run). */
export function cliValues({ cliSync, stall }) {
  return {
    cliFirstSync: cliSync?.cli.first.ratio ?? null,
    cliResync: cliSync?.cli.resync.ratio ?? null,
    healthzCliP99: stall?.big.cli?.p99Ms ?? null,
  };
}

/** The CLI section of the stdout table, as lines. */
export function formatCli({ cliSync: c }, { grid, fixed, ms }) {
  if (!c) return [];
  const row = (label, via, x) => [label, via, `${fixed(x.ms / 1000, 2)} s`, fixed(x.ratio, 3), ms(x.cpuMsPerCalendar)];
  return [
    `Sync as a process (N = ${c.n}, 100 ms latency; median of ${c.rounds} interleaved rounds, fresh stores each; floor ${fixed(c.floorMs / 1000, 2)} s)`,
    ...grid(
      ["scenario", "via", "wall", "× floor", "CPU/calendar"],
      [
        row("first sync", "syncOwner in-process", c.inProcess.first),
        row("", "calsync sync --local", c.cli.first),
        row("unchanged re-sync", "syncOwner in-process", c.inProcess.resync),
        row("", "calsync sync --local", c.cli.resync),
      ],
    ),
    `  CLI − in-process: ${fixed(c.cli.first.ms - c.inProcess.first.ms, 0)} ms (first), ${fixed(c.cli.resync.ms - c.inProcess.resync.ms, 0)} ms (re-sync); the CLI's CPU includes its start-up`,
    "",
  ];
}
