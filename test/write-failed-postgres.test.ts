// A PostgreSQL that refuses a calendar's write (CONTRACT §4): here the server's role may not write
// reservations (privileges revoked, as an operator's mistake or a read-only role leaves it). The calendar
// fails with `write_failed` and writes nothing, the others succeed, the API answers 207 and the log names the
// cause; once the role may write again, the next sync writes exactly the feed.
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { SyncResponse } from "../src/types.js";
import { buildIcs, day } from "./helpers/ics.js";
import { postgresServerUrl, queryPostgres } from "./helpers/postgres.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { postgresKind } from "./helpers/stores.js";

const kind = postgresKind();
const { feed, serve } = useServerFixtures(kind);
const role = `calsync_limited_${randomBytes(4).toString("hex")}`;
const password = randomBytes(12).toString("hex");
const admin = (sql: string) => queryPostgres(postgresServerUrl(), sql);
const limitedStores: Store[] = [];

afterAll(async () => {
  for (const store of limitedStores) await store.close();
  await admin(`DROP OWNED BY ${role}`).catch(() => {});
  await admin(`DROP ROLE IF EXISTS ${role}`);
});

const feedOf = (n: number) =>
  buildIcs(Array.from({ length: n }, (_, i) => ({ uid: `b-${i}`, start: day(3 + i * 3), end: day(5 + i * 3), summary: `Guest ${i}` })));

describe("a PostgreSQL role that may not write reservations", () => {
  it("fails that calendar with write_failed (207), keeps the others, and writes exactly the feed once it may", async () => {
    const url = await kind.create();
    const schema = /search_path=(\w+)/.exec(decodeURIComponent(url))![1]!;
    const setup = await openStore(url);
    limitedStores.push(setup);
    let bigFeed: { status: number } | { body: string } = { status: 503 };
    const ann = await ownerWith(setup, "Ann", {
      "A small flat": [{ source: "airbnb", url: feed({ body: feedOf(1) }) }],
      "B big house": [{ source: "booking", url: feed((req, res) => ("body" in bigFeed ? res.writeHead(200).end(bigFeed.body) : res.writeHead(503).end())) }],
    });
    // As the schema's owner: A is written, B is down.
    const owner = await serve(setup, { rateLimit: null });
    expect((await post(owner, ann.token)).status).toBe(207);

    await admin(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await admin(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    await admin(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`);
    await admin(`REVOKE INSERT, UPDATE ON ${schema}.reservations FROM ${role}`);
    const limitedUrl = new URL(url);
    limitedUrl.username = role;
    limitedUrl.password = password;
    const limited = await openStore(limitedUrl.toString());
    limitedStores.push(limited);
    const log: string[] = [];
    // With the default rate limits: their table is the migrations', so this role needs no CREATE for it.
    const server = await serve(limited, { log });

    bigFeed = { body: feedOf(40) };
    const res = await post(server, ann.token);
    expect(res.status).toBe(207);
    const body = (await res.json()) as SyncResponse;
    expect(body.results.map((r) => [r.propertyName, r.ok, r.result.error?.code])).toEqual([
      ["A small flat", true, undefined],
      ["B big house", false, "write_failed"],
    ]);
    expect(body.results[1]!.result.error?.message).toBe("calendar could not be written (the database role may not write); nothing was changed");
    expect(JSON.stringify(body)).not.toContain(role);
    expect(await limited.listReservations({ ownerId: ann.ownerId })).toHaveLength(1);
    expect(log.find((l) => l.includes("calendar not written"))).toContain("42501");

    await admin(`GRANT INSERT, UPDATE ON ${schema}.reservations TO ${role}`);
    const after = await post(server, ann.token);
    expect(after.status).toBe(200);
    const done = (await after.json()) as SyncResponse;
    expect(done.results.map((r) => r.result.reservationsCreated)).toEqual([0, 40]);
    const stored = await limited.listReservations({ ownerId: ann.ownerId });
    expect(stored.map((r) => r.uid).sort()).toEqual(["b-0", ...Array.from({ length: 40 }, (_, i) => `b-${i}`)].sort());
  });
});
