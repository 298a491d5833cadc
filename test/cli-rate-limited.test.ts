// Remote `calsync sync` (the built CLI) against a rate-limited server: the SDK sits out a short
// Retry-After and succeeds; a wait longer than --timeout ends at once with exit 5 and says why.
import { beforeAll, describe, expect, it } from "vitest";
import { isBuilt, runBin } from "./helpers/cli.js";
import { ics, ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";

const { feed, newStore, serve } = useServerFixtures();

beforeAll(() => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
});

async function limitedServer(windowSeconds: number) {
  const store = await newStore();
  const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
  const log: string[] = [];
  const server = await serve(store, { rateLimit: { limit: 1, windowSeconds }, log });
  // Use up the token's one request of this window.
  expect((await post(server, ann.token)).status).toBe(200);
  return { server, token: ann.token, statuses: () => log.filter((line) => line.includes(" POST ")).map((line) => line.split(" ")[3]) };
}

describe("calsync sync against a rate-limited server", () => {
  it("waits out a short Retry-After and exits 0 with the sync", async () => {
    const { server, token, statuses } = await limitedServer(5);
    const result = await runBin(["sync", "--base-url", server.url, "--api-key", token, "--timeout", "20000", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, syncedCalendars: 1 });
    // The first request, then the CLI's refused one, then its retry after the wait.
    expect(statuses()).toEqual(["200", "429", "200"]);
  });

  it("exits 5 at once, saying the server asked for a longer wait than --timeout allows", async () => {
    const { server, token, statuses } = await limitedServer(60);
    const result = await runBin(["sync", "--base-url", server.url, "--api-key", token, "--timeout", "5000"]);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: the server is rate limiting this API key \(429\) and asked to wait \d+ s, longer than --timeout 5000 ms allows; try again later\n$/);
    expect(result.stderr).not.toContain(token);
    expect(statuses()).toEqual(["200", "429"]);
  });
});
