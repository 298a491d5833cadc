// The SDK's resources (CONTRACT §14) over real HTTP against a loopback stand-in of the routes:
// pages walked lazily and whole, one page on its own, each error class by status, the
// Idempotency-Key on every write, and which calls are retried.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  APIError,
  AuthenticationError,
  CalsyncError,
  ConflictError,
  createClient,
  CursorPage,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  type Reservation,
} from "../src/sdk/index.js";
import { resolveClientOptions } from "../src/sdk/options.js";
import { requestJson } from "../src/sdk/request.js";
import { day } from "./helpers/ics.js";
import { READ_ONLY_KEY, STUB_KEY } from "./helpers/resource-fixtures.js";
import { startResourceApiStub, type ResourceApiStub } from "./helpers/resource-api-stub.js";

let api: ResourceApiStub;
beforeAll(async () => { api = await startResourceApiStub(); });
afterAll(async () => { await api.close(); });
beforeEach(() => api.reset());

const client = (apiKey = STUB_KEY) => createClient({ apiKey, baseURL: api.url });
// Keeps retry tests quick; the backoff itself is covered by test/sdk-retry-policy.test.ts.
const unavailable = { status: 503, headers: { "retry-after-ms": "10" }, body: { ok: false, error: { code: "unavailable", message: "later" } } };

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try { await promise; } catch (error) { return error as Error; }
  throw new Error("expected the call to fail, but it resolved");
}

describe("lists", () => {
  it("walks every reservation of every page exactly once with for await, in order", async () => {
    const seen: string[] = [];
    for await (const reservation of client().reservations.list("prp_sea", { limit: 3 })) seen.push(reservation.id);
    expect(seen).toEqual(["res_01", "res_02", "res_03", "res_04", "res_05", "res_06", "res_07"]);
    expect(api.requests.map((r) => r.query.get("cursor") === null)).toEqual([true, false, false]);
    expect(api.requests.every((r) => r.method === "GET" && r.query.get("limit") === "3")).toBe(true);
  });

  it("fetches the next page only when the loop reaches it", async () => {
    for await (const reservation of client().reservations.list("prp_sea", { limit: 3 })) {
      expect(reservation.id).toBe("res_01");
      break;
    }
    expect(api.requests).toHaveLength(1);
    // Nothing is fetched for a list that is never awaited or iterated.
    client().properties.list();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(api.requests).toHaveLength(1);
  });

  it("walks every property across pages", async () => {
    const names: string[] = [];
    for await (const property of client().properties.list({ limit: 2 })) names.push(property.name);
    expect(names).toEqual(["Harbour Cottage", "Mountain Hut", "Sea View Loft"]);
    expect(api.requests).toHaveLength(2);
  });

  it("gives one page with .page() or await, and the next with getNextPage()", async () => {
    const list = client().reservations.list("prp_sea", { limit: 5 });
    const first = await list.page();
    expect(first).toBeInstanceOf(CursorPage);
    expect(first.data.map((r) => r.id)).toEqual(["res_01", "res_02", "res_03", "res_04", "res_05"]);
    expect(first.hasNextPage()).toBe(true);
    expect(await list).toBe(first);
    expect(await list.catch(() => "failed")).toBe(first);
    const second = await first.getNextPage();
    expect(second.data.map((r) => r.id)).toEqual(["res_06", "res_07"]);
    expect(second.nextCursor).toBeNull();
    await expect(second.getNextPage()).rejects.toBeInstanceOf(CalsyncError);
    expect(api.requests).toHaveLength(2);
  });

  it("walks pages themselves with iterPages(), and starts at a given cursor", async () => {
    const sizes: number[] = [];
    for await (const page of client().reservations.list("prp_sea", { limit: 3 }).iterPages()) sizes.push(page.data.length);
    expect(sizes).toEqual([3, 3, 1]);
    const first = await client().reservations.list("prp_sea", { limit: 3 });
    const rest: string[] = [];
    for await (const r of client().reservations.list("prp_sea", { limit: 3, cursor: first.nextCursor! })) rest.push(r.id);
    expect(rest).toEqual(["res_04", "res_05", "res_06", "res_07"]);
  });

  it("sends from, to and status as the query", async () => {
    const all: Reservation[] = [];
    for await (const r of client().reservations.list("prp_sea", { from: day(40), to: day(60), status: "all" })) all.push(r);
    expect(all.map((r) => [r.id, r.status])).toEqual([["res_07", "active"], ["res_gone", "cancelled"]]);
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({ from: day(40), to: day(60), status: "all" });
  });

  it("stops with an error when the server hands back the cursor it was given", async () => {
    const stuck = { data: [], nextCursor: "c1" };
    api.failNext({ status: 200, body: stuck }, { status: 200, body: stuck });
    const walk = async () => { for await (const _ of client().properties.list()) void _; };
    await expect(walk()).rejects.toThrow(/same cursor/);
  });
});

describe("retrieve and availability", () => {
  it("retrieves a property with its calendars", async () => {
    const property = await client().properties.retrieve("prp_sea");
    expect(property.calendars.map((c) => c.source)).toEqual(["airbnb", "vrbo"]);
    expect(api.requests[0]!.path).toBe("/api/v1/properties/prp_sea");
  });

  it("asks for availability of [from, to) and returns the nights", async () => {
    const availability = await client().properties.availability("prp_sea", { from: day(2), to: day(5) });
    expect(availability.nights.map((n) => [n.date, n.available, n.reservationIds])).toEqual([
      [day(2), true, []],
      [day(3), false, ["res_01"]],
      [day(4), false, ["res_01"]],
    ]);
  });

  it("refuses an empty id before any request", async () => {
    await expect(client().properties.retrieve("")).rejects.toBeInstanceOf(CalsyncError);
    expect(api.requests).toHaveLength(0);
  });

  it("takes a JSON 200 that is not a property for what it is", async () => {
    api.failNext({ status: 200, body: { welcome: "to the hotel wifi" } });
    const error = (await rejectionOf(client().properties.retrieve("prp_sea"))) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.code).toBe("unexpected_response");
  });
});

describe("errors by status", () => {
  it("404 is NotFoundError", async () => {
    const error = await rejectionOf(client().properties.retrieve("prp_someone_elses"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).code).toBe("not_found");
  });

  it("409 nights_unavailable is ConflictError with the stays that hold the nights", async () => {
    const error = (await rejectionOf(
      client().reservations.create("prp_sea", { kind: "booking", arrival: day(4), departure: day(9) }),
    )) as ConflictError;
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(409);
    expect(error.code).toBe("nights_unavailable");
    expect(error.conflicts).toEqual([
      { reservationId: "res_01", source: "airbnb", arrival: day(3), departure: day(6) },
      { reservationId: "res_02", source: "vrbo", arrival: day(8), departure: day(11) },
    ]);
  });

  it("409 not_direct is ConflictError without conflicts", async () => {
    const error = (await rejectionOf(client().reservations.cancel("res_01"))) as ConflictError;
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe("not_direct");
    expect(error.conflicts).toEqual([]);
  });

  it("422 is UnprocessableEntityError", async () => {
    const error = (await rejectionOf(
      client().reservations.create("prp_sea", { kind: "block", arrival: "2027-02-30", departure: day(9) }),
    )) as UnprocessableEntityError;
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(/arrival/);
  });

  it("403 insufficient_scope is PermissionDeniedError, 401 stays AuthenticationError", async () => {
    const denied = await rejectionOf(client(READ_ONLY_KEY).reservations.create("prp_sea", { kind: "block", arrival: day(90), departure: day(91) }));
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect((denied as APIError).code).toBe("insufficient_scope");
    const unknown = await rejectionOf(client(`cs_${"Z".repeat(32)}`).properties.retrieve("prp_sea"));
    expect(unknown).toBeInstanceOf(AuthenticationError);
  });

  it("400 for a malformed cursor is a plain APIError", async () => {
    const error = (await rejectionOf(client().reservations.list("prp_sea", { cursor: "garbage" }).page())) as APIError;
    expect(error.constructor).toBe(APIError);
    expect(await client().reservations.list("prp_sea", { cursor: "garbage" }).catch((e: unknown) => (e as APIError).status)).toBe(400);
    expect(error.code).toBe("bad_request");
  });
});

describe("writes and the Idempotency-Key", () => {
  it("creates, updates and cancels a direct stay", async () => {
    const stay = await client().reservations.create("prp_sea", { kind: "block", arrival: day(60), departure: day(63), note: "family week" });
    expect(stay).toMatchObject({ source: "direct", kind: "block", status: "active", arrival: day(60), note: "family week" });
    expect(api.requests[0]!.body).toEqual({ kind: "block", arrival: day(60), departure: day(63), note: "family week" });
    const moved = await client().reservations.update(stay.id, { departure: day(65) });
    expect(moved.departure).toBe(day(65));
    expect((await client().reservations.cancel(stay.id)).status).toBe("cancelled");
    expect(api.requests.map((r) => r.method)).toEqual(["POST", "PATCH", "DELETE"]);
  });

  it("sends a fresh key on every write, and the caller's key as given", async () => {
    await client().reservations.create("prp_sea", { kind: "block", arrival: day(60), departure: day(61) });
    await client().reservations.create("prp_sea", { kind: "block", arrival: day(61), departure: day(62) });
    await client().reservations.create("prp_sea", { kind: "block", arrival: day(62), departure: day(63) }, { idempotencyKey: "order-1234" });
    const keys = api.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^calsync-sdk-[0-9a-f]{32}$/);
    expect(keys[1]).toMatch(/^calsync-sdk-[0-9a-f]{32}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("order-1234");
  });

  it("gets the first answer again for a replayed key, and 422 for the key with another body", async () => {
    const body = { kind: "booking" as const, arrival: day(70), departure: day(72) };
    const first = await client().reservations.create("prp_sea", body, { idempotencyKey: "k-1" });
    const again = await client().reservations.create("prp_sea", body, { idempotencyKey: "k-1" });
    expect(again).toEqual(first);
    expect(api.reservations.filter((r) => r.source === "direct")).toHaveLength(1);
    const reused = await rejectionOf(client().reservations.create("prp_sea", { ...body, departure: day(73) }, { idempotencyKey: "k-1" }));
    expect(reused).toBeInstanceOf(UnprocessableEntityError);
    expect((reused as APIError).code).toBe("idempotency_key_reused");
  });

  it("refuses an unusable key before any request", async () => {
    const body = { kind: "block" as const, arrival: day(70), departure: day(72) };
    await expect(client().reservations.create("prp_sea", body, { idempotencyKey: "" })).rejects.toBeInstanceOf(CalsyncError);
    await expect(client().reservations.cancel("res_01", { idempotencyKey: "x".repeat(256) })).rejects.toBeInstanceOf(CalsyncError);
    expect(api.requests).toHaveLength(0);
  });
});

describe("retries", () => {
  it("retries a write after a 503 with the same key, and stores the stay once", async () => {
    api.failNext(unavailable);
    const stay = await client().reservations.create("prp_sea", { kind: "booking", arrival: day(80), departure: day(82) });
    expect(api.requests).toHaveLength(2);
    expect(api.requests[0]!.headers["idempotency-key"]).toBe(api.requests[1]!.headers["idempotency-key"]);
    expect(api.reservations.filter((r) => r.source === "direct").map((r) => r.id)).toEqual([stay.id]);
  });

  it("retries a GET after a 503", async () => {
    api.failNext(unavailable, unavailable);
    expect((await client().properties.retrieve("prp_hut")).name).toBe("Mountain Hut");
    expect(api.requests).toHaveLength(3);
  });

  it("never retries a POST, PATCH or DELETE sent without a key", async () => {
    const options = resolveClientOptions({ apiKey: STUB_KEY, baseURL: api.url });
    for (const method of ["POST", "PATCH", "DELETE"] as const) {
      api.failNext(unavailable);
      const path = method === "POST" ? "/api/v1/properties/prp_sea/reservations" : "/api/v1/reservations/res_01";
      const error = await rejectionOf(requestJson(options, { method, path, body: {} }));
      expect((error as APIError).status).toBe(503);
      expect(api.requests).toHaveLength(1);
    }
  });

  it("does not retry a 409 or a 422", async () => {
    await rejectionOf(client().reservations.create("prp_sea", { kind: "booking", arrival: day(3), departure: day(4) }));
    await rejectionOf(client().reservations.create("prp_sea", { kind: "booking", arrival: "soon", departure: day(4) }));
    expect(api.requests).toHaveLength(2);
  });
});
