// `calsync reservation add|update|cancel` and `calsync availability` against a server, as a user runs
// them: the built CLI as a child process calling a loopback stand-in of the §14 routes. Exit 6 with the
// stays holding the nights on stderr, --json as the server answered, usage errors before any request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isBuilt, runBin } from "./helpers/cli.js";
import { day } from "./helpers/ics.js";
import { READ_ONLY_KEY, STUB_KEY, WRITE_ONLY_KEY } from "./helpers/resource-fixtures.js";
import { startResourceApiStub, type ResourceApiStub } from "./helpers/resource-api-stub.js";

let api: ResourceApiStub;
beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  api = await startResourceApiStub();
});
afterAll(async () => { await api?.close(); });
beforeEach(() => api.reset());

const calsync = (argv: string[], key = STUB_KEY) => runBin(argv, { CALSYNC_BASE_URL: api.url, CALSYNC_API_KEY: key });

describe("calsync reservation add", () => {
  it("adds a direct booking and prints it; --json prints the server's answer", async () => {
    const text = await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(60), "--departure", day(63), "--summary", "Ana (phone)"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`Added a booking at "Sea View Loft": ${day(60)} → ${day(63)} (3 nights), "Ana (phone)" (res_direct_1)\n`);
    expect(api.requests[0]!.body).toEqual({ kind: "booking", arrival: day(60), departure: day(63), summary: "Ana (phone)" });

    const json = await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(70), "--departure", day(71), "--block", "--note", "boiler", "--no-refresh", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(api.reservations.find((r) => r.id === "res_direct_2"));
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: "block", source: "direct", note: "boiler" });
    expect(api.requests.at(-1)!.body).toEqual({ kind: "block", arrival: day(70), departure: day(71), note: "boiler", refresh: false });
  });

  it("names the property by its id when the token may not read it (write scope only)", async () => {
    const result = await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(60), "--departure", day(63)], WRITE_ONLY_KEY);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Added a booking at property prp_sea: ${day(60)} → ${day(63)} (3 nights) (res_direct_1)\n`);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/v1/properties/prp_sea/reservations", "GET /api/v1/properties/prp_sea"]);
  });

  it("exits 6 when the nights are taken, naming each stay on stderr, and writes nothing", async () => {
    const result = await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(4), "--departure", day(9), "--json"]);
    expect(result.code).toBe(6);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("the nights are taken by these stays:");
    expect(result.stderr).toMatch(new RegExp(`^  airbnb\\s+${day(3)} → ${day(6)}  res_01$`, "m"));
    expect(result.stderr).toMatch(new RegExp(`^  vrbo\\s+${day(8)} → ${day(11)}  res_02$`, "m"));
    expect(api.reservations.some((r) => r.source === "direct")).toBe(false);
  });

  it.each([
    [["--arrival", "2027-02-30", "--departure", "2027-03-04"], /"2027-02-30" is not a date/],
    [["--arrival", "12/03/2027", "--departure", "2027-03-04"], /is not a date: write it as YYYY-MM-DD/],
    [["--arrival", "2027-03-04", "--departure", "2027-03-04"], /--departure must be after --arrival/],
    [["--arrival", "2027-03-04"], /required option '--departure <date>'/],
  ])("exits 2 for %j before any request", async (dates, message) => {
    const result = await calsync(["reservation", "add", "--property", "prp_sea", ...dates]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(api.requests).toHaveLength(0);
  });

  it("exits 2 with the server's reason when it refuses a value (422), after one request", async () => {
    const result = await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(-5), "--departure", day(-2)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: departure: the stay is over$/m);
    expect(api.requests).toHaveLength(1);
  });

  it("exits 2 for server flags with the local database", async () => {
    const mixed = await calsync(["reservation", "add", "--property", "p", "--arrival", day(60), "--departure", day(61), "--db", "x.db", "--base-url", api.url]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--base-url does not apply to the local database/);
    expect(api.requests).toHaveLength(0);
  });

  it("exits 4 for a token without the write scope, and for an unknown token", async () => {
    const args = ["reservation", "add", "--property", "prp_sea", "--arrival", day(60), "--departure", day(61)];
    const denied = await calsync(args, READ_ONLY_KEY);
    expect(denied.code).toBe(4);
    expect(denied.stderr).toMatch(/write scope \(insufficient_scope\)/);
    const unknown = await calsync(args, `cs_${"Z".repeat(32)}`);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/authentication failed \(invalid_token\)/);
  });

  it("exits 1 for an unknown property and 5 when the server keeps failing", async () => {
    const missing = await calsync(["reservation", "add", "--property", "prp_nobody", "--arrival", day(60), "--departure", day(61)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: not found: /);
    const down = { status: 500, body: { ok: false, error: { code: "internal_error", message: "boom (request id req_9)" } } };
    api.failNext(down, down, down);
    const failing = await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(60), "--departure", day(61)]);
    expect(failing.code).toBe(5);
    // Retried with one Idempotency-Key, as the SDK does for every write.
    expect(new Set(api.requests.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    expect(api.requests.length).toBe(3);
  });
});

describe("calsync reservation update and cancel", () => {
  it("moves a direct stay, refuses taken nights with exit 6, and cancels it", async () => {
    await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(60), "--departure", day(62)]);
    const moved = await calsync(["reservation", "update", "res_direct_1", "--departure", day(64), "--json"]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ id: "res_direct_1", arrival: day(60), departure: day(64) });
    expect(api.requests.at(-1)!.body).toEqual({ departure: day(64) });

    const clash = await calsync(["reservation", "update", "res_direct_1", "--arrival", day(38)]);
    expect(clash.code).toBe(6);
    expect(clash.stderr).toMatch(new RegExp(`^  airbnb\\s+${day(40)} → ${day(43)}  res_07$`, "m"));

    const cancelled = await calsync(["reservation", "cancel", "res_direct_1"]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(`Cancelled the booking at "Sea View Loft": ${day(60)} → ${day(64)} (4 nights) (res_direct_1)\n`);
  });

  it("exits 1 with the server's reason, and no usage hint, for a change to a cancelled stay", async () => {
    await calsync(["reservation", "add", "--property", "prp_sea", "--arrival", day(60), "--departure", day(62)]);
    expect((await calsync(["reservation", "cancel", "res_direct_1"])).code).toBe(0);
    const result = await calsync(["reservation", "update", "res_direct_1", "--note", "late arrival"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("error: the stay is cancelled: create a new one instead (calsync reservation add)\n");
  });

  it("exits 1 for a channel's reservation, which is read-only", async () => {
    const result = await calsync(["reservation", "cancel", "res_01"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/read-only \(not_direct\)/);
  });

  it("exits 2 when update is given nothing to change", async () => {
    const result = await calsync(["reservation", "update", "res_direct_1"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nothing to change/);
    expect(api.requests).toHaveLength(0);
  });
});

describe("calsync availability", () => {
  it("draws month grids with the taken nights in brackets", async () => {
    api.reservations.push({ ...api.reservations[0]!, id: "res_fixed", arrival: "2031-02-27", departure: "2031-03-03" });
    const result = await calsync(["availability", "--property", "prp_sea", "--from", "2031-02-24", "--to", "2031-03-06"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        "February 2031                 March 2031",
        " Mo  Tu  We  Th  Fr  Sa  Su    Mo  Tu  We  Th  Fr  Sa  Su",
        " 24  25  26 [27][28]                               [1] [2]",
        "                                3   4   5",
        "",
        "2031-02-24 → 2031-03-06: 4 nights taken, 6 free of 10 (taken nights in [brackets])",
        "",
      ].join("\n"),
    );
  });

  it("prints the Availability with --json, and asks for the server's default range without --from/--to", async () => {
    const result = await calsync(["availability", "--property", "prp_sea", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const availability = JSON.parse(result.stdout);
    expect(Object.keys(availability)).toEqual(["propertyId", "timeZone", "from", "to", "nights"]);
    expect(availability.nights).toHaveLength(365);
    expect(availability.nights.find((n: { date: string }) => n.date === day(3))).toEqual({ date: day(3), available: false, reservationIds: ["res_01"] });
    expect([...api.requests[0]!.query]).toEqual([]);
  });

  it("exits 2 for a bad range before any request, and 1 for an unknown property", async () => {
    const backwards = await calsync(["availability", "--property", "prp_sea", "--from", "2031-03-05", "--to", "2031-03-01"]);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/--to must be after --from/);
    const bad = await calsync(["availability", "--property", "prp_sea", "--from", "2031-13-01"]);
    expect(bad.code).toBe(2);
    expect(api.requests).toHaveLength(0);
    const missing = await calsync(["availability", "--property", "prp_nobody"]);
    expect(missing.code).toBe(1);
  });
});
