// The dashboard's route tests share this: a temp SQLite store, a loopback feed server, the real h3 app
// (feeds on loopback allowed), and owners signed in through the sign-in form.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createApp } from "../../src/server/index.js";
import { hashPassword } from "../../src/server/dashboard/passwords.js";
import { openStore } from "../../src/store/index.js";
import type { Owner, Store } from "../../src/store/types.js";
import { pageClient, signIn, type PageClient } from "./dashboard-client.js";
import { startFeedServer, type FeedServer } from "./feed-server.js";

/** Base URL the app is called with (app.fetch needs no port). */
export const BASE = "http://calsync.test";
const PASSWORD = "correct horse battery";

export interface DashboardFixture {
  store: Store;
  feeds: FeedServer;
  app: ReturnType<typeof createApp>;
  /** A new owner with an email and a password, signed in by a fresh client. */
  signedIn(name?: string): Promise<{ owner: Owner; client: PageClient }>;
  /** A client with no cookies. */
  anonymous(): PageClient;
  close(): Promise<void>;
}

/** Starts the set-up; call `close()` in afterAll. */
export async function startDashboardFixture(): Promise<DashboardFixture> {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-dashboard-"));
  const store = await openStore(path.join(dir, "dashboard.db"));
  const feeds = await startFeedServer();
  const app = createApp({ store, allowPrivateNetworks: true });
  // One hash for every owner: scrypt is deliberately slow.
  const passwordHash = await hashPassword(PASSWORD);
  let count = 0;
  const anonymous = () => pageClient((request) => app.fetch(request), BASE);
  return {
    store,
    feeds,
    app,
    anonymous,
    async signedIn(name = `Owner ${count + 1}`) {
      const owner = await store.createOwner(name, { email: `owner${++count}@example.com` });
      await store.setOwnerPassword(owner.id, passwordHash);
      const client = anonymous();
      await signIn(client, owner.email!, PASSWORD);
      return { owner, client };
    },
    async close() {
      await feeds.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
