// A PostgreSQL role without CREATE on the schema (an operator's least-privilege role) runs `calsync serve`
// with rate limits: the counts' table is made by the migrations, not by the limiter on first use.
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import { RATE_LIMITS_TABLE } from "../src/store/postgres/rate-limits.js";
import { isBuilt } from "./helpers/cli.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { postgresServerUrl, queryPostgres } from "./helpers/postgres.js";
import { postSync, startServe, type ServeProcess } from "./helpers/processes.js";
import { ics, ownerWith } from "./helpers/server-fixtures.js";
import { postgresKind } from "./helpers/stores.js";

const kind = postgresKind();
const role = `calsync_nocreate_${randomBytes(4).toString("hex")}`;
const password = randomBytes(12).toString("hex");
const admin = (sql: string) => queryPostgres(postgresServerUrl(), sql);
let feeds: FeedServer;
const instances: ServeProcess[] = [];

beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  feeds = await startFeedServer();
});
afterEach(async () => {
  await Promise.all(instances.splice(0).map((instance) => instance.stop()));
});
afterAll(async () => {
  await feeds.close();
  await kind.dispose();
  await admin(`DROP OWNED BY ${role}`).catch(() => {});
  await admin(`DROP ROLE IF EXISTS ${role}`);
});

describe("a PostgreSQL role without CREATE on the schema", () => {
  it("starts calsync serve with rate limits and answers 429 past each budget", async () => {
    const url = await kind.create();
    const schema = /search_path=(\w+)/.exec(decodeURIComponent(url))![1]!;
    // The schema's owner migrates and sets up; the limiter's table exists before anyone serves.
    const setup = await openStore(url);
    const ann = await ownerWith(setup, "Ann", { Loft: [{ source: "airbnb", url: feeds.url("/limited/1.ics", { body: ics("a1") }) }] });
    await setup.close();

    await admin(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await admin(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    await admin(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`);
    const [privilege] = await admin(`SELECT has_schema_privilege('${role}', '${schema}', 'CREATE') AS can`);
    expect(privilege).toEqual({ can: false });
    const limitedUrl = new URL(url);
    limitedUrl.username = role;
    limitedUrl.password = password;

    const server = await startServe(["--db", limitedUrl.toString(), "--rate-limit", "2/m", "--api-rate-limit", "2/m"]);
    instances.push(server);
    const syncs: number[] = [];
    for (let i = 0; i < 3; i++) syncs.push((await postSync(server.url, ann.token)).status);
    expect(syncs).toEqual([200, 200, 429]);
    const reads: Response[] = [];
    for (let i = 0; i < 3; i++) reads.push(await fetch(`${server.url}/api/v1/properties`, { headers: { "x-api-key": ann.token } }));
    expect(reads.map((res) => res.status)).toEqual([200, 200, 429]);
    expect(((await reads[2]!.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // Counted in the shared table, one row per budget of the token.
    const counts = await kind.query(url, `SELECT points FROM ${RATE_LIMITS_TABLE} ORDER BY key`);
    expect(counts.map((row) => row.points)).toEqual([3, 3]);
    expect(server.stderr()).not.toMatch(/permission denied/);
  });
});
