// At-least-once across a crash (CONTRACT §11): the built `calsync serve` fails to reach a receiver that is
// down, is killed with SIGKILL, and after a restart delivers the same event exactly once, same webhook-id.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { ics, ownerWith, until } from "./helpers/server-fixtures.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { tmp, feeds } = useCliFixtures({ built: true });
const children: ChildProcess[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await receiver.close();
});

/** Starts the built `calsync serve` on a free port; resolves with its URL and a way to wait for its exit. */
async function serve(db: string) {
  const child = spawn(process.execPath, [path.join(root, "bin/calsync.js"), "serve", "--db", db, "--port", "0", "--allow-private-networks"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.trim());
    });
    void exited.then(() => reject(new Error(`serve exited before listening:\n${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

describe("calsync serve killed while a receiver is down", () => {
  it("delivers the event after a restart, once, with the webhook-id of the failed attempt", async () => {
    const db = tmp.db();
    let store: Store = await openStore(db);
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feeds.url("/restart.ics", { body: ics("a1") }) }] });
    const endpoint = await store.createWebhookEndpoint({ ownerId: ann.ownerId, url: receiver.url, events: ["sync.completed"], secret: generateWebhookSecret() });
    await store.close();
    receiver.down();

    const first = await serve(db);
    const sync = await fetch(`${first.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": ann.token } });
    expect(sync.status).toBe(200);
    store = await openStore(db);
    try {
      await until(async () => (await store.listWebhookDeliveries())[0]?.attempts === 1);
      const [failed] = await store.listWebhookDeliveries();
      expect(failed).toMatchObject({ endpointId: endpoint.id, type: "sync.completed", status: "pending", lastStatus: null });
      expect(failed!.lastError).toMatch(/closed the connection/);

      first.child.kill("SIGKILL");
      await first.exited;
      receiver.up();
      const before = receiver.received.length;
      const second = await serve(db);
      // The first retry is due about 5 s after the failed attempt; the restarted worker finds it in the database.
      await until(() => receiver.received.length > before, 20_000);
      await until(async () => (await store.listWebhookDeliveries())[0]?.status === "delivered");
      second.child.kill("SIGTERM");
      await second.exited;

      const got = receiver.received.slice(before);
      expect(got).toHaveLength(1);
      expect(got[0]!.status).toBe(204);
      expect(got[0]!.headers["webhook-id"]).toBe(failed!.eventId);
      expect(got[0]!.event.type).toBe("sync.completed");
      expect(await store.listWebhookDeliveries()).toEqual([
        expect.objectContaining({ eventId: failed!.eventId, status: "delivered", attempts: 2, lastStatus: 204, lastError: null }),
      ]);
      expect(second.stderr()).toMatch(/webhook delivered eventId=msg_\w+ endpointId=whk_\w+ attempt=2 status=204/);
    } finally {
      await store.close();
    }
  }, 40_000);
});
