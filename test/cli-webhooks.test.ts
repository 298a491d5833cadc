// `calsync webhook add|list|remove|deliveries|deliver` (CONTRACT §11, §6): JSON shapes, the secret shown
// once, the private-network guard, usage errors, and cron's path: `sync --local` then `webhook deliver`.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const { tmp, feeds } = useCliFixtures();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** A database with owner Ann; `cli(...)` runs calsync on it. */
async function database() {
  const db = tmp.db();
  const cli = (...argv: string[]) => runCli([...argv, "--db", db]);
  expect((await cli("owner", "add", "Ann")).code).toBe(0);
  return { db, cli };
}

const json = (stdout: string) => JSON.parse(stdout) as any;

describe("calsync webhook add", () => {
  it("prints {id, url, events, secret} once; list and remove never show the secret", async () => {
    const { cli } = await database();
    const added = await cli("webhook", "add", "--url", "https://hooks.example.com/calsync?token=abc", "--events", "reservation.cancelled, booking.conflict", "--json");
    expect(added.code).toBe(0);
    const endpoint = json(added.stdout);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Za-z]{20}$/),
      url: "https://hooks.example.com/calsync?token=***",
      events: ["reservation.cancelled", "booking.conflict"],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    expect(Buffer.from(endpoint.secret.slice(6), "base64")).toHaveLength(24);
    // The reference library takes the secret as it is printed.
    expect(() => new Webhook(endpoint.secret)).not.toThrow();

    const listed = await cli("webhook", "list", "--json");
    expect(json(listed.stdout)).toEqual([
      { id: endpoint.id, ownerId: expect.stringMatching(/^own_/), url: "https://hooks.example.com/calsync?token=***", events: endpoint.events, createdAt: expect.any(String) },
    ]);
    expect(listed.stdout).not.toContain(endpoint.secret.slice(6));
    expect((await cli("webhook", "list")).stdout).toMatch(/^ID\s+OWNER\s+URL\s+EVENTS\s+CREATED\n/);

    const removed = await cli("webhook", "remove", endpoint.id, "--json");
    expect(json(removed.stdout)).toMatchObject({ id: endpoint.id });
    expect(json((await cli("webhook", "list", "--json")).stdout)).toEqual([]);
    const again = await cli("webhook", "remove", endpoint.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no webhook "${endpoint.id}"`);
  });

  it("prints only the secret without --json, subscribes to every type by default, and warns about plain http", async () => {
    const { cli } = await database();
    const added = await cli("webhook", "add", "--url", "http://hooks.example.com/in");
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{32}\n$/);
    expect(added.stderr).toMatch(/Copy the secret now/);
    expect(added.stderr).toMatch(/unencrypted/);
    expect(json((await cli("webhook", "list", "--json")).stdout)[0].events).toEqual(["*"]);
  });

  it.each([
    ["http://127.0.0.1:9/hooks"],
    ["http://[::1]/hooks"],
    ["https://10.1.2.3/hooks"],
    ["https://169.254.169.254/latest/meta-data"],
  ])("refuses %s with blocked_address (exit 1) unless private networks are allowed", async (url) => {
    const { cli, db } = await database();
    const refused = await cli("webhook", "add", "--url", url);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: blocked_address: webhook address .* is private or local/);
    expect(refused.stdout).toBe("");
    expect((await cli("webhook", "add", "--url", url, "--allow-private-networks")).code).toBe(0);
    const byEnv = await runCli(["webhook", "add", "--url", url, "--db", db], { env: { CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" } });
    expect(byEnv.code).toBe(0);
  });

  it.each([
    [["--url", "ftp://example.com/x"], /--url: the webhook URL must be an https:\/\/ \(or http:\/\/\) address/],
    [["--url", "not a url"], /--url: the webhook URL is not a valid URL/],
    [["--url", "https://user:pw@example.com/x"], /must not hold a user name or password/],
    [["--url", "https://example.com/x", "--events", "reservation.deleted"], /unknown event type "reservation.deleted"/],
    [["--url", "https://example.com/x", "--events", ""], /--events is empty/],
    [[], /required option '--url <url>' not specified/],
  ])("treats %j as a usage error (exit 2)", async (args, message) => {
    const { cli } = await database();
    const result = await cli("webhook", "add", ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe("sync --local, then calsync webhook deliver", () => {
  it("sends what the sync wrote to the outbox, records it, and has nothing left to send", async () => {
    const { cli, db } = await database();
    const property = json((await cli("property", "add", "Loft", "--json")).stdout);
    const url = feeds.url(`/cli-hooks/${property.id}.ics`, { body: buildIcs([{ uid: "a", start: day(10), end: day(12), summary: "Reserved" }]) });
    expect((await cli("calendar", "add", "--property", property.id, "--url", url)).code).toBe(0);
    const endpoint = json((await cli("webhook", "add", "--url", receiver.url, "--allow-private-networks", "--json")).stdout);

    // A dry run writes nothing, so it has nothing to announce.
    expect((await cli("sync", "--local", "--dry-run", "--allow-private-networks")).code).toBe(0);
    expect(json((await cli("webhook", "deliveries", "--json")).stdout)).toEqual([]);

    expect((await cli("sync", "--local", "--allow-private-networks")).code).toBe(0);
    const pending = json((await cli("webhook", "deliveries", "--webhook", endpoint.id, "--json")).stdout);
    expect(pending.map((d: any) => [d.type, d.status, d.attempts, d.webhookId])).toEqual([
      ["sync.completed", "pending", 0, endpoint.id],
      ["reservation.created", "pending", 0, endpoint.id],
    ]);

    const before = receiver.received.length;
    const sent = await cli("webhook", "deliver", "--allow-private-networks", "--json");
    expect(sent.code).toBe(0);
    expect(json(sent.stdout)).toEqual({ attempted: 2, delivered: 2, retrying: 0, failed: 0 });
    const got = receiver.received.slice(before);
    const events = got.map((r) => new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>) as { type: string });
    expect(events.map((e) => e.type).sort()).toEqual(["reservation.created", "sync.completed"]);
    const done = json((await cli("webhook", "deliveries", "--json")).stdout);
    expect(done.map((d: any) => [d.status, d.attempts, d.lastStatus])).toEqual([["delivered", 1, 204], ["delivered", 1, 204]]);
    expect(done.map((d: any) => d.eventId).sort()).toEqual(got.map((r) => r.headers["webhook-id"]).sort());
    const table = await cli("webhook", "deliveries");
    expect(table.stdout).toMatch(/^EVENT\s+TYPE\s+WEBHOOK\s+STATUS\s+ATTEMPTS\s+LAST ATTEMPT\s+NEXT ATTEMPT\s+LAST ERROR\n/);

    const idle = await cli("webhook", "deliver");
    expect(idle.code).toBe(0);
    expect(idle.stdout).toBe("0 attempts: 0 delivered, 0 to retry, 0 failed for good\n");

    // Without the flag, the guard refuses the loopback receiver on the attempt itself: exit 3, retried later.
    feeds.setRoute(`/cli-hooks/${property.id}.ics`, { body: buildIcs([{ uid: "a", start: day(11), end: day(13), summary: "Reserved" }]) });
    expect((await cli("sync", "--local", "--allow-private-networks")).code).toBe(0);
    const guarded = await cli("webhook", "deliver", "--json");
    expect(guarded.code).toBe(3);
    expect(json(guarded.stdout)).toEqual({ attempted: 2, delivered: 0, retrying: 2, failed: 0 });
    expect(guarded.stderr).toMatch(/receiver address 127\.0\.0\.1 is private or local/);
    expect(receiver.received.length).toBe(before + 2);
  });

  it("lists deliveries of one endpoint only, and refuses an unknown one", async () => {
    const { cli } = await database();
    const unknown = await cli("webhook", "deliveries", "--webhook", "whk_nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook "whk_nope"');
    expect((await cli("webhook", "deliveries", "--limit", "0")).code).toBe(2);
  });
});
