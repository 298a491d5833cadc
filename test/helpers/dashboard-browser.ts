// What the dashboard's browser test files each start: a SQLite store in a temp directory, a loopback feed
// server, the real server on port 0 (feeds may be on loopback), and headless Chromium.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { openStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";
import { launchChromium } from "./chromium.js";
import { startFeedServer, type FeedServer } from "./feed-server.js";

/** A running dashboard with a browser; `close()` stops all of it and removes the directory. */
export interface DashboardBrowser {
  store: Store;
  feeds: FeedServer;
  server: RunningServer;
  browser: Browser;
  close(): Promise<void>;
}

/** Starts the four, the temp directory named after `prefix`; whatever started is closed again if one fails. */
export async function startDashboardBrowser(prefix: string): Promise<DashboardBrowser> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const started: Partial<Omit<DashboardBrowser, "close">> = {};
  const close = async () => {
    await started.browser?.close();
    await started.server?.close({ graceMs: 2000 });
    await started.feeds?.close();
    await started.store?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const store = (started.store = await openStore(path.join(dir, "calsync.db")));
    started.feeds = await startFeedServer();
    started.server = await startServer({ store, host: "127.0.0.1", port: 0, allowPrivateNetworks: true, log: () => {} });
    started.browser = await launchChromium();
    return { ...(started as Omit<DashboardBrowser, "close">), close };
  } catch (error) {
    await close();
    throw error;
  }
}
