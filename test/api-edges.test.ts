// The API's edges (CONTRACT §2, §14) through a real server: a 405 names the methods of its own path, a
// repeated query parameter is refused rather than read once, and a 422 quotes what the client sent.
import { describe, expect, it } from "vitest";
import { day } from "./helpers/ics.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";

describe("the API's edges", () => {
  const { newStore, serve } = useServerFixtures();

  const setUp = async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const server = await serve(store);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { "x-api-key": ann.token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, allow: res.headers.get("allow"), body: (await res.json()) as { error?: { code: string; message: string; field?: string } } };
    };
    return { store, call, loft: ann.propertyIds.Loft! };
  };

  it("answers a 405 with a message naming the methods its own path takes, as Allow does", async () => {
    const { call, loft } = await setUp();
    const cases: Array<[string, string, string, string]> = [
      ["POST", "/api/v1/properties", "GET", "use GET for /api/v1/properties"],
      ["DELETE", `/api/v1/properties/${loft}`, "GET, PATCH", "use GET or PATCH for /api/v1/properties/{id}"],
      ["PUT", `/api/v1/properties/${loft}/reservations`, "GET, POST", "use GET or POST for /api/v1/properties/{id}/reservations"],
      ["POST", `/api/v1/properties/${loft}/availability`, "GET", "use GET for /api/v1/properties/{id}/availability"],
      ["GET", "/api/v1/reservations/rsv_x", "PATCH, DELETE", "use PATCH or DELETE for /api/v1/reservations/{id}"],
      ["POST", "/api/v1/openapi.json", "GET, HEAD", "use GET or HEAD for /api/v1/openapi.json"],
      ["GET", "/api/v1/calendars/sync", "POST", "use POST for /api/v1/calendars/sync"],
    ];
    for (const [method, path, allow, message] of cases) {
      const res = await call(method, path);
      expect({ path, status: res.status, allow: res.allow, error: res.body.error }).toEqual({
        path,
        status: 405,
        allow,
        error: { code: "method_not_allowed", message },
      });
    }
  });

  it("refuses a repeated query parameter with 400 naming it, even when its first value is good", async () => {
    const { call, loft } = await setUp();
    const cases: Array<[string, string]> = [
      ["/api/v1/properties?limit=1&limit=abc", "limit"],
      ["/api/v1/properties?limit=1&limit=1", "limit"],
      [`/api/v1/properties/${loft}?x=1&x=2`, "x"],
      [`/api/v1/properties/${loft}/reservations?status=all&from=${day(1)}&status=gone`, "status"],
      [`/api/v1/properties/${loft}/availability?from=${day(1)}&from=${day(2)}`, "from"],
      [`/api/v1/properties/${loft}/reservations?cursor=&cursor=`, "cursor"],
    ];
    for (const [path, field] of cases) {
      const res = await call("GET", path);
      expect({ path, status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({ path, status: 400, code: "bad_request", field });
      expect(res.body.error?.message).toContain(`"${field}"`);
    }
    // The writes take no query parameters, but a repeated one is still not read quietly.
    const write = await call("POST", `/api/v1/properties/${loft}/reservations?refresh=1&refresh=2`, { kind: "block", arrival: day(5), departure: day(6) });
    expect(write).toMatchObject({ status: 400, body: { error: { code: "bad_request", field: "refresh" } } });
    // One of each is read as before.
    expect((await call("GET", `/api/v1/properties?limit=1`)).status).toBe(200);
    expect((await call("GET", `/api/v1/properties/${loft}/reservations?status=all&limit=2&from=${day(1)}`)).status).toBe(200);
  });

  it("quotes the date the client sent in a 422 and a 400, not a rewritten one", async () => {
    const { call, loft } = await setUp();
    const made = await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "booking", arrival: "2027-02-30", departure: "2027-03-04" });
    expect(made).toMatchObject({ status: 422, body: { error: { code: "invalid_request", field: "arrival" } } });
    expect(made.body.error?.message).toContain('"2027-02-30"');
    expect(made.body.error?.message).not.toContain("20270230");

    const month = await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "booking", arrival: "2030-01-02", departure: "2030-13-01" });
    expect(month).toMatchObject({ status: 422, body: { error: { field: "departure" } } });
    expect(month.body.error?.message).toContain('"2030-13-01"');

    const listed = await call("GET", `/api/v1/properties/${loft}/reservations?from=2027-02-30`);
    expect(listed).toMatchObject({ status: 400, body: { error: { field: "from" } } });
    expect(listed.body.error?.message).toContain('"2027-02-30"');
    expect(listed.body.error?.message).not.toContain("20270230");
  });
});
