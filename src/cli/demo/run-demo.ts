// runDemo(): the whole demo on one screen — temp database, sample feeds, server, two syncs through the SDK.
// Everything it starts is stopped and its temporary folder deleted, whatever happens.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "../../sdk/index.js";
import { startServer, type RunningServer } from "../../server/serve.js";
import { openStore } from "../../store/index.js";
import type { ReservationRow, Store } from "../../store/types.js";
import type { SyncResponse } from "../../types.js";
import { startFeedHost, type FeedHost } from "./feed-host.js";
import { changeFeed, setUpScenario, type Scenario } from "./scenario.js";

/** Options of one demo run. */
export interface DemoOptions {
  /** Keep the temporary folder (database included) instead of deleting it. @default false */
  keep?: boolean;
  /** Stops the demo early (Ctrl-C); cleanup still runs. */
  signal?: AbortSignal;
  /** Folder of the sample feeds. @default the package's demo/feeds/ */
  feedsDir?: URL;
}

/** What the demo prints as it goes; `narrate.ts` writes it for people, `--json` ignores it. */
export interface DemoObserver {
  ready?(facts: { dir: string; dbPath: string; feedsUrl: string; serverUrl: string; scenario: Scenario }): void;
  firstSync?(response: SyncResponse, reservations: ReservationRow[]): void;
  feedChanged?(): void;
  secondSync?(response: SyncResponse, reservations: ReservationRow[], before: ReservationRow[]): void;
}

/** The two Sync responses of the demo and where its files were. */
export interface DemoResult {
  first: SyncResponse;
  second: SyncResponse;
  /** The temporary folder; deleted by the time this resolves unless `keep` was set. */
  dir: string;
}

/** Runs the demo end to end, reporting each step to `observer`, and cleans up even when it fails. */
export async function runDemo(options: DemoOptions, observer: DemoObserver = {}): Promise<DemoResult> {
  const { signal } = options;
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-demo-"));
  const dbPath = path.join(dir, "calsync.db");
  let store: Store | undefined;
  let feeds: FeedHost | undefined;
  let server: RunningServer | undefined;
  try {
    store = await openStore(dbPath);
    feeds = await startFeedHost({ dir: options.feedsDir });
    signal?.throwIfAborted();
    const scenario = await setUpScenario(store, feeds);
    // Loopback feeds are refused by default (CONTRACT §5); the demo is the case the switch exists for.
    server = await startServer({ store, host: "127.0.0.1", port: 0, allowPrivateNetworks: true, log: () => {} });
    signal?.throwIfAborted();
    observer.ready?.({ dir, dbPath, feedsUrl: feeds.baseUrl, serverUrl: server.url, scenario });

    // The same call an app makes: the SDK against the server, which runs the engine on the store.
    const client = createClient({ apiKey: scenario.token, baseURL: server.url, timeout: 30_000 });
    const first = await client.calendars.sync({ signal });
    const before = await store.listReservations();
    observer.firstSync?.(first, before);

    changeFeed(feeds);
    observer.feedChanged?.();
    const second = await client.calendars.sync({ signal });
    observer.secondSync?.(second, await store.listReservations(), before);
    return { first, second, dir };
  } finally {
    await cleanUp(async () => server?.close({ graceMs: 2_000 }));
    await cleanUp(async () => feeds?.close());
    await cleanUp(async () => await store?.close());
    if (!options.keep) await cleanUp(async () => rmSync(dir, { recursive: true, force: true }));
  }
}

// One failing cleanup step must not leave the others undone.
async function cleanUp(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch {
    // best effort: the error that matters is the one that ended the demo
  }
}
