// `calsync sync`: through a server (default, see ../sync-remote.ts) or with the engine on the local database (--local).
import { Command } from "@commander-js/extra-typings";
import { UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption, privateNetworksAllowed, timeoutOption } from "../options.js";
import { printSyncResponse } from "../output.js";
import { createProgressLine } from "../progress.js";

// Flags that only make sense in one mode; using them in the other is a usage error, not silently ignored.
const LOCAL_ONLY = { db: "--db", owner: "--owner", dryRun: "--dry-run", force: "--force", allowPrivateNetworks: "--allow-private-networks" } as const;
const REMOTE_ONLY = { baseUrl: "--base-url", apiKey: "--api-key" } as const;

/** Builds the `sync` command. */
export function syncCommand(context: CliContext) {
  return new Command("sync")
    .description("Synchronise every calendar of an owner: on a calsync server, or here with --local")
    .option("--local", "run the sync engine on the local database instead of calling a server")
    .addOption(jsonOption())
    .addOption(timeoutOption("milliseconds to wait: for each feed with --local (default 20000), else for the server"))
    .optionsGroup("Local sync (with --local):")
    .addOption(dbOption())
    .addOption(ownerOption())
    .option("--dry-run", "report what would change without writing anything")
    .option("--force", "apply changes even when a feed would cancel (nearly) every upcoming reservation")
    .option("--allow-private-networks", "let feed URLs reach loopback and private addresses (or CALSYNC_ALLOW_PRIVATE_NETWORKS=1)")
    .optionsGroup("Remote sync (without --local):")
    .option("--base-url <url>", "server to call (default: $CALSYNC_BASE_URL, else http://localhost:8787)")
    .option("--api-key <key>", "API token (default: $CALSYNC_API_KEY)")
    .addHelpText(
      "after",
      [
        "",
        "Exit codes: 0 all calendars ok, 3 some failed, 4 authentication failed,",
        "            5 network or server error, 2 usage error, 1 anything else.",
        "",
        "Examples:",
        "  calsync sync --local",
        "  calsync sync --local --dry-run --json",
        "  CALSYNC_API_KEY=cs_… calsync sync --base-url https://calsync.example.com",
      ].join("\n"),
    )
    .action(async (options) => {
      for (const [key, flag] of Object.entries(options.local ? REMOTE_ONLY : LOCAL_ONLY)) {
        if (options[key as keyof typeof options] !== undefined) {
          throw new UsageError(
            options.local ? `${flag} does not apply to --local` : `${flag} only applies with --local`,
          );
        }
      }
      if (!options.local) {
        // Heavy imports at the edge of the command that needs them (STYLE.md): `calsync --help` loads neither.
        const { remoteSync } = await import("../sync-remote.js");
        await remoteSync(
          { baseUrl: options.baseUrl, apiKey: options.apiKey, timeout: options.timeout, json: options.json },
          context,
        );
        return;
      }

      // The engine (undici's Agent the largest part) loads while the database opens: the first requests go out sooner.
      const [{ syncOwner }, { runWithOwnerLease }, store] = await Promise.all([
        import("../../engine/sync.js"),
        import("../../store/owner-lease.js"),
        context.store(options.db),
      ]);
      const owner = await context.owner(store, options.owner);
      const progress = createProgressLine(context.io.stderr);
      // Counting reads every calendar of the owner: only for a line that shows.
      if (progress.visible) progress.start((await store.listCalendars({ ownerId: owner.id })).length);
      const run = (runId?: string) =>
        syncOwner({
          store,
          ownerId: owner.id,
          runId,
          force: options.force ?? false,
          dryRun: options.dryRun ?? false,
          allowPrivateNetworks: privateNetworksAllowed(options.allowPrivateNetworks, context.io.env),
          timeoutMs: options.timeout,
          trigger: "cli",
          onProgress: progress.update,
        });
      const onWait = () => context.logger.info(`another sync of ${owner.name} is running (a server, cron or another instance); waiting for it`);
      let response;
      try {
        // A dry run writes nothing, so it need not wait; a real one runs after any run going elsewhere,
        // and reports what it changed itself (nothing, when the other run already took every change).
        response = options.dryRun ? await run() : (await runWithOwnerLease({ store, onWait }, owner.id, "after", run))!;
      } finally {
        progress.stop();
      }
      printSyncResponse(context, response, { json: options.json, dryRun: options.dryRun });
    });
}
