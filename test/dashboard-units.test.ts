// The dashboard's pure parts: escaping by construction, password hashes, the timeline's layout, and
// when a throttled sign-in may be tried again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { html, join, SafeHtml, url } from "../src/server/dashboard/html.js";
import { hashPassword, passwordProblem, verifyPassword } from "../src/server/dashboard/passwords.js";
import { giveBackAttempt, reserveAttempt } from "../src/server/dashboard/throttle.js";
import { buildTimeline, type TimelineReservation } from "../src/server/dashboard/timeline-model.js";
import { openStore } from "../src/store/index.js";

describe("html", () => {
  it("escapes every interpolated string, number and attribute value", () => {
    const name = `<img src=x onerror="alert(1)">&'`;
    expect(html`<p title="${name}">${name} ${3}</p>`.value).toBe(
      "<p title=\"&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;\">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39; 3</p>",
    );
  });

  it("inserts fragments made by html as they are, alone or in lists, and prints nothing for null, undefined and false", () => {
    const items = ["a<", "b"].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${html`<br>`}${null}${undefined}${false}`.value).toBe("<ul><li>a&lt;</li><li>b</li></ul><br>");
    expect(join([html`<b>1</b>`, html`<b>2</b>`], html`, `).value).toBe("<b>1</b>, <b>2</b>");
  });

  it("refuses a list of plain strings and plain text in $${…}, which html-template-tag would insert unescaped", () => {
    const raw = ["<script>"] as unknown as SafeHtml[];
    expect(() => html`<p>${raw}</p>`).toThrow(TypeError);
    const text = "<script>" as unknown as SafeHtml;
    expect(() => html`<p>$${text}</p>`).toThrow(TypeError);
  });

  it("takes URLs in href and action only through url(), which lets through paths and http(s) addresses", () => {
    expect(() => html`<a href="${"/x"}">x</a>`).toThrow(/url\(/);
    expect(html`<a href="$${url("/properties/prp_1?a=1&b=<2>")}">x</a>`.value).toBe('<a href="/properties/prp_1?a=1&amp;b=&lt;2&gt;">x</a>');
    expect(html`<a href="$${url("https://cal.example.com/")}">x</a>`.value).toBe('<a href="https://cal.example.com/">x</a>');
    for (const bad of ["javascript:alert(1)", "//evil.test/x", "/\\evil.test", "data:text/html,x"]) {
      expect(html`<a href="$${url(bad)}">x</a>`.value, bad).toBe('<a href="#">x</a>');
    }
  });
});

describe("passwords", () => {
  it("stores a salted scrypt hash with its parameters and checks it in either direction", async () => {
    const [first, second] = await Promise.all([hashPassword("correct horse battery"), hashPassword("correct horse battery")]);
    expect(first).toMatch(/^scrypt\$15\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword("correct horse battery", first)).toBe(true);
    expect(await verifyPassword("correct horse batterz", first)).toBe(false);
    expect(await verifyPassword("", null)).toBe(false);
    expect(await verifyPassword("x", "scrypt$15$8$3$broken")).toBe(false);
  });

  it("asks for at least 10 characters", () => {
    expect(passwordProblem("123456789")).toMatch(/at least 10/);
    expect(passwordProblem("1234567890")).toBeUndefined();
  });
});

describe("timeline layout", () => {
  const reservation = (id: string, calendarId: string, arrival: string, departure: string, extra: Partial<TimelineReservation> = {}): TimelineReservation => ({
    id,
    propertyId: "prp_1",
    calendarId,
    source: calendarId === "cal_b" ? "booking" : "airbnb",
    kind: "booking",
    status: "active",
    arrival,
    departure,
    summary: id,
    ...extra,
  });
  const calendars = [
    { id: "cal_a", source: "airbnb" as const },
    { id: "cal_b", source: "booking" as const },
  ];

  it("places bars by night from today, clips what runs past either edge, and drops what lies outside", () => {
    const timeline = buildTimeline({
      calendars,
      today: "2027-03-10",
      days: 10,
      reservations: [
        reservation("before", "cal_a", "2027-03-07", "2027-03-12"),
        reservation("inside", "cal_a", "2027-03-14", "2027-03-16"),
        reservation("after", "cal_a", "2027-03-18", "2027-03-25"),
        reservation("past", "cal_a", "2027-03-01", "2027-03-10"),
        reservation("far", "cal_a", "2027-03-20", "2027-03-22"),
        reservation("cancelled", "cal_a", "2027-03-16", "2027-03-18", { status: "cancelled" }),
      ],
    });
    expect(timeline.days).toHaveLength(10);
    expect(timeline.days[0]).toBe("2027-03-10");
    const bars = timeline.rows[0]!.lanes.flat().map(({ id, column, span, before, after, nights }) => ({ id, column, span, before, after, nights }));
    expect(bars).toEqual([
      { id: "before", column: 0, span: 2, before: true, after: false, nights: 5 },
      { id: "inside", column: 4, span: 2, before: false, after: false, nights: 2 },
      { id: "after", column: 8, span: 2, before: false, after: true, nights: 7 },
    ]);
    expect(timeline.occupiedNights).toBe(6);
  });

  it("draws a stay by its stored nights (arrival to departure): a check-out morning stays free for the next guest", () => {
    const timeline = buildTimeline({
      calendars,
      today: "2027-03-10",
      days: 10,
      reservations: [reservation("timed", "cal_a", "2027-03-11", "2027-03-13"), reservation("next", "cal_b", "2027-03-13", "2027-03-14")],
    });
    expect(timeline.rows[0]!.lanes[0]![0]).toMatchObject({ column: 1, span: 2, from: "2027-03-11", to: "2027-03-13" });
    expect(timeline.conflicts).toEqual([]);
  });

  it("marks a booking arriving within another's buffer nights as a tight turnover, never a double booking (CONTRACT §18)", () => {
    const reservations = [
      reservation("leaves", "cal_a", "2027-03-11", "2027-03-13"),
      reservation("tight", "cal_b", "2027-03-13", "2027-03-15"),
      reservation("later", "cal_a", "2027-03-17", "2027-03-19"),
    ];
    const tightIds = (bufferNights: number) =>
      buildTimeline({ calendars, today: "2027-03-10", days: 20, reservations, bufferNights }).rows.flatMap((row) => row.lanes.flat().filter((bar) => bar.tight).map((bar) => bar.id));
    expect(tightIds(1)).toEqual(["tight"]);
    expect(tightIds(2)).toEqual(["tight"]);
    expect(tightIds(3)).toEqual(["later", "tight"]);
    expect(tightIds(0)).toEqual([]);
    expect(buildTimeline({ calendars, today: "2027-03-10", days: 20, reservations, bufferNights: 2 }).conflicts).toEqual([]);
  });

  it("marks the bookings of a double booking and the conflicting nights; blocks never conflict", () => {
    const timeline = buildTimeline({
      calendars,
      today: "2027-03-10",
      days: 20,
      reservations: [
        reservation("a", "cal_a", "2027-03-12", "2027-03-16"),
        reservation("b", "cal_b", "2027-03-14", "2027-03-18"),
        reservation("blocked", "cal_b", "2027-03-20", "2027-03-22", { kind: "block" }),
        reservation("c", "cal_a", "2027-03-20", "2027-03-22"),
      ],
    });
    const flags = timeline.rows.flatMap((row) => row.lanes.flat().map((bar) => [bar.id, bar.conflict]));
    expect(flags).toEqual([["a", true], ["c", false], ["b", true], ["blocked", false]]);
    expect(timeline.conflicts).toMatchObject([{ column: 4, span: 2, from: "2027-03-14", to: "2027-03-16", sources: ["airbnb", "booking"] }]);
  });

  it("tells an echo's bar which channel's stay it repeats, when that stay is among the reservations shown", () => {
    const timeline = buildTimeline({
      calendars,
      today: "2027-03-10",
      days: 10,
      reservations: [
        reservation("a", "cal_a", "2027-03-11", "2027-03-13"),
        reservation("echo", "cal_b", "2027-03-11", "2027-03-13", { kind: "block", echoOf: "a" }),
        reservation("orphan", "cal_b", "2027-03-15", "2027-03-17", { kind: "block", echoOf: "cancelled-stay" }),
      ],
    });
    const bars = timeline.rows.flatMap((row) => row.lanes.flat().map((bar) => [bar.id, bar.echoOf]));
    expect(bars).toEqual([["a", undefined], ["echo", { source: "airbnb" }], ["orphan", { source: null }]]);
    expect(timeline.conflicts).toEqual([]);
  });

  it("gives overlapping stays of one calendar their own lanes and numbers two calendars of one channel", () => {
    const timeline = buildTimeline({
      calendars: [{ id: "cal_a", source: "airbnb" }, { id: "cal_c", source: "airbnb" }],
      today: "2027-03-10",
      days: 10,
      reservations: [
        reservation("x", "cal_a", "2027-03-10", "2027-03-14"),
        reservation("y", "cal_a", "2027-03-12", "2027-03-13"),
        reservation("z", "cal_a", "2027-03-14", "2027-03-15"),
      ],
    });
    expect(timeline.rows.map((row) => row.label)).toEqual(["airbnb 1", "airbnb 2"]);
    expect(timeline.rows[0]!.lanes.map((lane) => lane.map((bar) => bar.id))).toEqual([["x", "z"], ["y"]]);
    expect(timeline.rows[1]!.lanes).toEqual([[]]);
  });
});

describe("sign-in throttle", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-throttle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses the 11th attempt in 15 minutes until enough of them are older than 15 minutes, and not a given-back one", async () => {
    const store = await openStore(path.join(dir, "throttle.db"));
    const start = Date.parse("2027-03-10T12:00:00Z");
    const at = (minutes: number) => new Date(start + minutes * 60_000);
    const email = ["email:a@example.com"];
    for (let i = 0; i < 9; i++) expect((await reserveAttempt(store, email, at(i))).allowed).toBe(true);
    const tenth = await reserveAttempt(store, email, at(9));
    expect(tenth.allowed).toBe(true);
    // 10 counted: the first must leave the window (at 15 min) before an 11th may be checked.
    expect(await reserveAttempt(store, email, at(10))).toEqual({ allowed: false, retryAfterSeconds: 5 * 60 });
    expect(await reserveAttempt(store, [...email, "ip:192.0.2.1"], at(14.5))).toEqual({ allowed: false, retryAfterSeconds: 30 });
    // The 10th's password matched: given back, it frees a place at once.
    if (tenth.allowed) await giveBackAttempt(store, tenth.attempt);
    expect((await reserveAttempt(store, email, at(10))).allowed).toBe(true);
    expect((await reserveAttempt(store, ["email:b@example.com"], at(10))).allowed).toBe(true);
    expect((await reserveAttempt(store, email, at(15.5))).allowed).toBe(true);
    await store.close();
  });
});
