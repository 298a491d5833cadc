// The API over real HTTP on loopback (startServer, port 0) against a loopback feed server:
// every row of the status table, Sync response bodies field by field, owner isolation; once on a
// SQLite file and once on PostgreSQL.
import { describe, expect, it } from "vitest";
import { generateToken } from "../src/server/tokens.js";
import type { SyncResponse } from "../src/types.js";
import { ics, ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds } from "./helpers/stores.js";

describe.each(storeKinds())("POST /api/v1/calendars/sync over HTTP ($name)", (kind) => {
  const { feed, newStore, serve } = useServerFixtures(kind);

  it("answers 200 with every field of the Sync response when all calendars succeed", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { "Sea View Loft": [{ source: "airbnb", url: feed({ body: ics("a1", "a2") }) }] });
    const server = await serve(store);
    const res = await post(server, ann.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = (await res.json()) as SyncResponse;
    expect(body).toEqual({
      ok: true,
      syncedCalendars: 1,
      propertiesChecked: 1,
      failed: 0,
      durationMs: expect.any(Number),
      results: [
        {
          propertyId: ann.propertyIds["Sea View Loft"],
          propertyName: "Sea View Loft",
          source: "airbnb",
          ok: true,
          result: {
            status: "success",
            reservationsFound: 2,
            reservationsCreated: 2,
            reservationsUpdated: 0,
            reservationsCancelled: 0,
          },
        },
      ],
    });
    expect(await store.listReservations({ ownerId: ann.ownerId })).toHaveLength(2);
  });

  it("answers 207 when one calendar fails, reporting the failure without the feed's secrets", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {
          "Sea View Loft": [
            { source: "airbnb", url: feed({ body: ics("a1") }) },
            { source: "booking", url: feed({ status: 503, body: "maintenance" }) },
          ],
          "Alpine Cabin": [{ source: "vrbo", url: feed({ body: ics("v1", "v2", "v3") }) }],
        });
    const server = await serve(store);
    const res = await post(server, ann.token);
    expect(res.status).toBe(207);
    const text = await res.text();
    expect(text).not.toContain("s3cr3t");
    const body = JSON.parse(text) as SyncResponse;
    expect(body).toEqual({
      ok: false,
      syncedCalendars: 3,
      propertiesChecked: 2,
      failed: 1,
      durationMs: expect.any(Number),
      results: [
        {
          propertyId: ann.propertyIds["Alpine Cabin"],
          propertyName: "Alpine Cabin",
          source: "vrbo",
          ok: true,
          result: { status: "success", reservationsFound: 3, reservationsCreated: 3, reservationsUpdated: 0, reservationsCancelled: 0 },
        },
        {
          propertyId: ann.propertyIds["Sea View Loft"],
          propertyName: "Sea View Loft",
          source: "airbnb",
          ok: true,
          result: { status: "success", reservationsFound: 1, reservationsCreated: 1, reservationsUpdated: 0, reservationsCancelled: 0 },
        },
        {
          propertyId: ann.propertyIds["Sea View Loft"],
          propertyName: "Sea View Loft",
          source: "booking",
          ok: false,
          result: {
            status: "failed",
            reservationsFound: 0,
            reservationsCreated: 0,
            reservationsUpdated: 0,
            reservationsCancelled: 0,
            error: { code: "http_error", message: expect.any(String), httpStatus: 503 },
          },
        },
      ],
    });
  });

  it("shows an owner's token only that owner's properties", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { "Ann's Loft": [{ source: "airbnb", url: feed({ body: ics("ann1") }) }] });
    const bob = await ownerWith(store, "Bob", { "Bob's Barn": [{ source: "booking", url: feed({ body: ics("bob1", "bob2") }) }] });
    const server = await serve(store);
    const body = (await (await post(server, bob.token)).json()) as SyncResponse;
    expect(body.propertiesChecked).toBe(1);
    expect(body.results.map((r) => [r.propertyId, r.propertyName])).toEqual([[bob.propertyIds["Bob's Barn"], "Bob's Barn"]]);
    expect(JSON.stringify(body)).not.toContain(ann.propertyIds["Ann's Loft"]);
    expect(await store.listReservations({ ownerId: ann.ownerId })).toHaveLength(0);
    expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(0);
  });

  it("answers every error row of the status table as JSON with a request id", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {});
    const expired = generateToken();
    await store.createToken({ ownerId: ann.ownerId, name: "old", prefix: expired.prefix, hash: expired.hash, expiresAt: new Date(Date.now() - 1) });
    const revoked = await ownerWith(store, "Rev", {});
    await store.revokeToken(revoked.tokenId);
    const server = await serve(store);
    const cases: Array<[Promise<Response>, number, string]> = [
      [post(server), 401, "missing_token"],
      [post(server, "garbage"), 401, "invalid_token"],
      [post(server, generateToken().token), 401, "invalid_token"],
      [post(server, expired.token), 401, "expired_token"],
      [post(server, revoked.token), 401, "revoked_token"],
      [fetch(`${server.url}/api/nope`), 404, "not_found"],
      [fetch(`${server.url}/api/v1/calendars/sync`), 405, "method_not_allowed"],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect([res.status, await res.json()]).toEqual([status, { ok: false, error: { code, message: expect.any(String) } }]);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(res.statusText).not.toBe("");
      if (status === 401) expect(res.headers.get("www-authenticate")).toBe("ApiKey");
      if (status === 405) expect(res.headers.get("allow")).toBe("POST");
    }
    const ok = await post(server, ann.token, { "x-request-id": "my-trace-1" });
    expect([ok.status, ok.headers.get("x-request-id")]).toEqual([200, "my-trace-1"]);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
  });

  it("answers 500 with a generic body when the database fails under the server", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {});
    const log: string[] = [];
    const server = await serve(store, { log });
    await store.close();
    const res = await post(server, ann.token);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text).error.code).toBe("internal_error");
    for (const leak of [store.path, ann.token, "database", "    at "]) expect(text).not.toContain(leak);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(500);
    // The operator's log says what happened, under the request id.
    expect(log.some((line) => line.includes("request failed") && line.includes(res.headers.get("x-request-id")!))).toBe(true);
  });
});
