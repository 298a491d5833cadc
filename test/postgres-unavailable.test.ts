// PostgreSQL down or unreachable (CONTRACT §2, §10): the server answers 503 `unavailable` and recovers by
// itself, and its webhook worker says so in three log lines, not one a poll; `serve` and every other command refuse to start with one line naming host and port, never the password.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../src/server/openapi/document.js";
import { StoreUnavailableError } from "../src/store/errors.js";
import { openStore } from "../src/store/index.js";
import { closedPortUrl } from "./helpers/api-fixture.js";
import { isBuilt, runBin } from "./helpers/cli.js";
import { ownerWith, post, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { parsePrometheusText, sampleValue } from "./helpers/prometheus-text.js";
import { postgresKind } from "./helpers/stores.js";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy.js";

const kind = postgresKind();
const { serve } = useServerFixtures();
let proxy: TcpProxy;
let url: string;

beforeAll(async () => {
  const direct = new URL(await kind.create());
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
  direct.port = String(proxy.port);
  url = direct.toString();
});
afterAll(async () => {
  await proxy.close();
  await kind.dispose();
});

describe("a PostgreSQL that goes away while calsync serves", () => {
  it("answers 503 unavailable (and /healthz 503) while it is gone, and serves again once it is back", async () => {
    const store = await openStore(url);
    try {
      const ann = await ownerWith(store, "Ann", {});
      const log: string[] = [];
      const server = await serve(store, { log });
      expect((await post(server, ann.token)).status).toBe(200);
      const limiter = (await store.sharedRateLimiter({ limit: 6, windowSeconds: 60 }))!;

      await proxy.down();
      // The shared rate limit's count fails as every query does, so a request caught there answers 503 too.
      await expect(limiter.consume("tok_x")).rejects.toBeInstanceOf(StoreUnavailableError);
      const res = await post(server, ann.token);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      // The OpenAPI document tells client generators about the same headers.
      const documented = Object.keys(openApiDocument().paths["/api/v1/calendars/sync"].post.responses["503"].headers);
      expect(documented).toContain("Retry-After");
      for (const name of documented) expect(res.headers.get(name), name).not.toBeNull();
      const body = await res.text();
      expect(JSON.parse(body)).toEqual({ ok: false, error: { code: "unavailable", message: expect.any(String) } });
      const health = await fetch(`${server.url}/healthz`);
      expect([health.status, ((await health.json()) as { error: { code: string } }).error.code]).toEqual([503, "unavailable"]);
      // Readiness says the same, so an orchestrator sends requests to an instance whose database answers.
      const ready = await fetch(`${server.url}/readyz`);
      expect([ready.status, ready.headers.get("retry-after"), ((await ready.json()) as { error: { code: string } }).error.code]).toEqual([503, "2", "unavailable"]);
      const password = new URL(url).password;
      for (const text of [body, log.join("\n")]) expect(text).not.toContain(password);
      expect(log.join("\n")).toContain(`cannot reach PostgreSQL at 127.0.0.1:${proxy.port}`);

      await proxy.up();
      expect((await post(server, ann.token)).status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await proxy.up().catch(() => {});
      await store.close();
    }
  });

  it("logs one line when webhook delivery cannot read the outbox, one a minute while it cannot, and one when it can again", async () => {
    const store = await openStore(url);
    try {
      const log: string[] = [];
      // The worker's clock, moved by hand to show the minute between reminders without waiting for it.
      let shiftMs = 0;
      await serve(store, { log, jsonLogs: true, webhooks: { pollMs: 20, now: () => new Date(Date.now() + shiftMs) } });
      const webhookLines = () =>
        log.map((line) => JSON.parse(line) as { level: string; msg: string; error?: string; failedPolls?: number }).filter((l) => l.msg.startsWith("webhook"));

      await proxy.down();
      await until(() => webhookLines().length > 0);
      // A poll every 20 ms: some dozen more fail in this while, and none of them is logged.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(webhookLines()).toEqual([
        { time: expect.any(String), level: "error", msg: "webhook delivery paused: cannot read the outbox", error: expect.stringContaining(`cannot reach PostgreSQL at 127.0.0.1:${proxy.port}`) },
      ]);

      shiftMs = 61_000;
      await until(() => webhookLines().length > 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [, reminder, ...rest] = webhookLines();
      expect(rest).toEqual([]);
      expect(reminder).toMatchObject({ level: "error", msg: "webhook delivery still paused: cannot read the outbox", error: expect.stringContaining("cannot reach PostgreSQL") });
      expect(reminder!.failedPolls).toBeGreaterThan(5);

      await proxy.up();
      await until(() => webhookLines().length > 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(webhookLines().map((l) => l.msg)).toEqual([
        "webhook delivery paused: cannot read the outbox",
        "webhook delivery still paused: cannot read the outbox",
        "webhook delivery resumed",
      ]);
      expect(webhookLines()[2]).toMatchObject({ level: "info", failedPolls: expect.any(Number) });
      expect(log.join("\n")).not.toContain(new URL(url).password);
    } finally {
      await proxy.up().catch(() => {});
      await store.close();
    }
  });

  it("still serves /metrics, counting the 503s, with the outbox depth last read", async () => {
    const store = await openStore(url);
    try {
      const ann = await ownerWith(store, "Ann", {});
      const server = await serve(store, { metrics: true, webhooks: false });
      const scrape = async () => {
        const res = await fetch(`${server.url}/metrics`);
        // An outage is when an operator needs the metrics most: the scrape must not fail with the database.
        expect(res.status).toBe(200);
        return parsePrometheusText(await res.text());
      };
      expect(sampleValue(await scrape(), "calsync_webhook_outbox_depth")).toBe(0);

      await proxy.down();
      expect((await post(server, ann.token)).status).toBe(503);
      const families = await scrape();
      const route = { method: "POST", route: "/api/v1/calendars/sync", status: "503" };
      expect(sampleValue(families, "calsync_http_requests_total", route)).toBe(1);
      expect(sampleValue(families, "calsync_webhook_outbox_depth")).toBe(0);
      expect(families.has("process_cpu_user_seconds_total")).toBe(true);
    } finally {
      await proxy.up().catch(() => {});
      await store.close();
    }
  });
});

describe("a PostgreSQL that cannot be reached at start", () => {
  beforeAll(() => {
    if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  });

  it("keeps calsync serve and the admin commands from starting: exit 1, one line with host and port, no password", async () => {
    const port = new URL(await closedPortUrl()).port;
    const db = `postgres://calsync:hunter2-secret@127.0.0.1:${port}/calsync`;
    for (const argv of [["serve", "--db", db, "--port", "0"], ["owner", "list"], ["sync", "--local"]]) {
      const result = await runBin(argv, { CALSYNC_DB: db });
      expect(result.code, argv.join(" ")).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`error: cannot reach PostgreSQL at 127.0.0.1:${port}: connection refused\n`);
    }
  });
});
