// What the dashboard's pages do, over the real h3 app, a real store and loopback feeds: properties,
// calendars (refusals and removal), Sync now through the API's single flight, the
// outbound feed, API tokens and the timeline.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { createDirectStay } from "../src/resources/index.js";
import { generateToken } from "../src/server/tokens.js";
import { MAX_PROPERTY_NAME_LENGTH } from "../src/store/property-name.js";
import { startDashboardFixture, BASE, type DashboardFixture } from "./helpers/dashboard-fixture.js";
import { buildIcs, day } from "./helpers/ics.js";
import { Gate } from "./helpers/server-fixtures.js";

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
});
afterAll(async () => {
  await fx.close();
});

const flashOf = async (client: { get(path: string): Promise<Response> }, location: string | null) =>
  /<div class="flash (\w+)" role="\w+">([^<]*)<\/div>/.exec(await (await client.get(location!)).text())?.slice(1, 3);

describe("properties", () => {
  it("adds a property with a time zone and lists it as a link named by its name", async () => {
    const { owner, client } = await fx.signedIn();
    const page = await client.page("/properties");
    expect(page).toContain("No properties yet");
    expect(page).toContain('<option value="Europe/Lisbon">Europe/Lisbon</option>');
    const added = await client.post("/properties", { name: "  Sea View Loft ", timeZone: "Europe/Lisbon" });
    const [property] = await fx.store.listProperties(owner.id);
    expect(property!.name).toBe("Sea View Loft");
    expect([added.status, added.headers.get("location")]).toEqual([303, `/properties/${property!.id}`]);
    expect(await flashOf(client, added.headers.get("location"))).toEqual(["ok", "Added Sea View Loft. Now add its calendars."]);
    expect(await client.page("/properties")).toContain(`<a href="/properties/${property!.id}">Sea View Loft</a>`);
  });

  it("shows the time zone chosen for a property on its page, and says so when none is set", async () => {
    const { owner, client } = await fx.signedIn();
    const lisbon = await fx.store.createProperty(owner.id, "Lisbon Flat", "Europe/Lisbon");
    const bare = await fx.store.createProperty(owner.id, "Bare Flat", null);
    expect(await client.page(`/properties/${lisbon.id}`)).toMatch(/<p class="muted">Time zone Europe\/Lisbon · 0 calendars<\/p>/);
    expect(await client.page(`/properties/${bare.id}`)).toMatch(/<p class="muted">No time zone set \(nights as the channels write them\) · 0 calendars<\/p>/);
  });

  it("refuses an empty name or an unknown time zone with 422, keeping what was typed", async () => {
    const { owner, client } = await fx.signedIn();
    await client.page("/properties");
    const empty = await client.post("/properties", { name: "  ", timeZone: "" });
    expect([empty.status, (await empty.text()).includes("Give the property a name.")]).toEqual([422, true]);
    const zone = await client.post("/properties", { name: "Cabin", timeZone: "Mars/Olympus_Mons" });
    const html = await zone.text();
    expect([zone.status, html.includes("Choose a time zone from the list."), html.includes('value="Cabin"')]).toEqual([422, true, true]);
    expect(await fx.store.listProperties(owner.id)).toEqual([]);
  });

  it("refuses a name longer than the CLI allows with 422, and keeps one of exactly that length", async () => {
    const { owner, client } = await fx.signedIn();
    await client.page("/properties");
    const long = await client.post("/properties", { name: "L".repeat(MAX_PROPERTY_NAME_LENGTH + 1), timeZone: "" });
    expect([long.status, (await long.text()).includes(`Keep the name to ${MAX_PROPERTY_NAME_LENGTH} characters or fewer.`)]).toEqual([422, true]);
    expect(await fx.store.listProperties(owner.id)).toEqual([]);
    const longest = await client.post("/properties", { name: "L".repeat(MAX_PROPERTY_NAME_LENGTH), timeZone: "" });
    expect(longest.status).toBe(303);
    expect((await fx.store.listProperties(owner.id)).map((p) => p.name.length)).toEqual([MAX_PROPERTY_NAME_LENGTH]);
  });
});

// Adding a calendar (preview, then Save calendar) has its own file: dashboard-add-calendar.test.ts.
describe("calendars", () => {
  it("refuses at the add form what calendar add refuses: not a feed URL, the same feed twice, calsync's own outbound feed", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Loft");
    const feed = fx.feeds.url("/dup/airbnb.ics", { body: buildIcs([]) });
    await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: feed });
    const feedToken = await fx.store.propertyFeedToken(property.id);
    await client.page(`/properties/${property.id}`);
    const cases: Array<[string, string]> = [
      ["ftp://example.com/x.ics", "must be an http://, https:// or webcal:// address"],
      [feed.replace("http://", "webcal://").toUpperCase().replace("/DUP/AIRBNB.ICS", "/dup/airbnb.ics"), "already"],
      [`https://cal.example.com/ical/${feedToken}.ics?exclude=airbnb`, "outbound feed"],
    ];
    for (const [url, message] of cases) {
      const response = await client.post(`/properties/${property.id}/calendars`, { url, source: "" });
      const html = await response.text();
      expect(response.status, url).toBe(422);
      expect(html, url).toContain(message);
    }
    expect((await fx.store.listCalendars({ propertyId: property.id })).length).toBe(1);
  });

  it("removes a calendar with its reservations", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Loft");
    const calendar = await fx.store.createCalendar({
      propertyId: property.id,
      source: "airbnb",
      url: fx.feeds.url("/remove/airbnb.ics", { body: buildIcs([{ uid: "a", start: day(3), end: day(5), summary: "Reserved" }]) }),
    });
    await client.page("/properties");
    await client.post("/sync", {});
    expect((await fx.store.listReservations({ propertyId: property.id })).length).toBe(1);
    const removed = await client.post(`/calendars/${calendar.id}/remove`, {});
    expect([removed.status, removed.headers.get("location")]).toEqual([303, `/properties/${property.id}`]);
    expect(await fx.store.getCalendar(calendar.id)).toBeUndefined();
    expect(await fx.store.listReservations({ propertyId: property.id })).toEqual([]);
  });
});

describe("Sync now", () => {
  it("shows every calendar's result, the failed one's code, HTTP status and message (what the API sends as 207)", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Harbour Cottage");
    await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: fx.feeds.url("/sync/airbnb.ics", { body: buildIcs([{ uid: "a", start: day(3), end: day(5), summary: "Reserved" }]) }) });
    await fx.store.createCalendar({ propertyId: property.id, source: "booking", url: fx.feeds.url("/sync/booking.ics", { status: 503, body: "busy" }) });
    await client.page(`/properties/${property.id}`);
    const response = await client.post("/sync", { back: `/properties/${property.id}` });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("1 of 2 calendars failed");
    expect(html).toContain("207 Multi-Status");
    expect(html).toMatch(/<code>http_error<\/code> <span class="muted">\(HTTP 503\)<\/span><div class="error-text">feed answered HTTP 503<\/div>/);
    expect(html).toContain(`href="/properties/${property.id}">Back</a>`);
    const [run] = await fx.store.listSyncRuns({ ownerId: owner.id });
    expect([run!.trigger, run!.failed, run!.syncedCalendars]).toEqual(["dashboard", 1, 2]);
    const page = await client.page(`/properties/${property.id}`);
    expect(page).toContain("<code>http_error</code><div class=\"error-text\">feed answered HTTP 503</div>");
  });

  it("joins a sync of the owner already running through the API instead of fetching the feeds again", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Slow Loft");
    const gate = new Gate();
    await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: fx.feeds.url("/sync/slow.ics", gate.serve(buildIcs([]))) });
    const generated = generateToken();
    await fx.store.createToken({ ownerId: owner.id, name: "api", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
    await client.page("/properties");

    const api = fx.app.fetch(new Request(`${BASE}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": generated.token } }));
    expect(await gate.arrivals(1)).toBe(true);
    const dashboard = client.post("/sync", {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    gate.open();
    const [fromApi, fromDashboard] = await Promise.all([api, dashboard]);
    expect([fromApi.status, fromDashboard.status]).toEqual([200, 200]);
    const { durationMs } = (await fromApi.json()) as { durationMs: number };
    expect(await fromDashboard.text()).toContain(`checked in ${durationMs} ms`);
    expect(gate.arrived).toBe(1);
    expect((await fx.store.listSyncRuns({ ownerId: owner.id })).length).toBe(1);
  });
});

describe("outbound feed", () => {
  it("creates the feed URL on request, then rotates it so the old one answers 404", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Loft");
    expect(await client.page(`/properties/${property.id}`)).toContain("Create feed URL");
    expect((await fx.store.getProperty(property.id))!.feedToken).toBeNull();
    await client.post(`/properties/${property.id}/feed`, {});
    const first = (await fx.store.getProperty(property.id))!.feedToken!;
    const page = await client.page(`/properties/${property.id}`);
    expect(page).toContain(`<code class="feed-url" id="feed-url">${BASE}/ical/${first}.ics</code>`);
    expect(page).toContain('data-copy="feed-url" hidden');

    const rotated = await client.post(`/properties/${property.id}/feed`, { rotate: "1" });
    expect(rotated.headers.get("location")).toBe(`/properties/${property.id}#feed`);
    const second = (await fx.store.getProperty(property.id))!.feedToken!;
    expect(second).not.toBe(first);
    expect((await fx.app.fetch(new Request(`${BASE}/ical/${first}.ics`))).status).toBe(404);
    expect((await fx.app.fetch(new Request(`${BASE}/ical/${second}.ics`))).status).toBe(200);
  });
});

describe("API tokens", () => {
  it("creates a token shown once, stores only its hash, and the API takes it", async () => {
    const { owner, client } = await fx.signedIn();
    await client.page("/settings/tokens");
    const created = await client.post("/settings/tokens", { name: "backend", expiresInDays: "30" });
    expect([created.status, created.headers.get("cache-control")]).toEqual([200, "no-store"]);
    const html = await created.text();
    const token = /data-testid="new-token">(cs_[0-9A-Za-z]{32})</.exec(html)![1]!;
    const [record] = await fx.store.listTokens(owner.id);
    expect(record!.name).toBe("backend");
    expect(record!.hash).not.toContain(token);
    const days = (Date.parse(record!.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(await client.page("/settings/tokens")).not.toContain(token);

    const api = await fx.app.fetch(new Request(`${BASE}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } }));
    expect(api.status).toBe(200);
    expect(await client.page("/settings/tokens")).toContain(`<code>${record!.prefix}…</code>`);
  });

  it("offers the scopes as checkboxes, all checked, and makes a token with only those left checked", async () => {
    const { owner, client } = await fx.signedIn();
    const page = await client.page("/settings/tokens");
    expect(page.match(/<input type="checkbox" name="scope" value="(sync|read|write)" checked>/g)).toHaveLength(3);
    expect((await client.post("/settings/tokens", { name: "none", expiresInDays: "", "scopes-offered": "1" })).status).toBe(422);
    const created = await client.post("/settings/tokens", { name: "site", expiresInDays: "", "scopes-offered": "1", scope: "read" });
    expect(created.status).toBe(200);
    const token = /data-testid="new-token">(cs_[0-9A-Za-z]{32})</.exec(await created.text())![1]!;
    expect((await fx.store.listTokens(owner.id)).map((t) => [t.name, t.scopes])).toEqual([["site", ["read"]]]);
    const api = await fx.app.fetch(new Request(`${BASE}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } }));
    expect(api.status).toBe(403);
    expect(await client.page("/settings/tokens")).toContain(`<td data-label="Scopes">read</td>`);
  });

  it("gives the new token a Try it line its scopes allow: a read, a sync, or for a write-only token what it may call", async () => {
    const { client } = await fx.signedIn();
    await client.page("/settings/tokens");
    const made = async (scope: string) => {
      const html = await (await client.post("/settings/tokens", { name: scope, expiresInDays: "", "scopes-offered": "1", scope })).text();
      const token = /data-testid="new-token">(cs_[0-9A-Za-z]{32})</.exec(html)![1]!;
      return { token, hint: /<p class="hint">((?:Try it|It can only)[^\n]*)<\/p>/.exec(html)![1]! };
    };
    const reader = await made("read");
    expect(reader.hint).toMatch(/^Try it: <code>curl -H &quot;x-api-key: cs_.{4}…&quot; [^<]+\/api\/v1\/properties<\/code>$/);
    expect((await fx.app.fetch(new Request(`${BASE}/api/v1/properties`, { headers: { "x-api-key": reader.token } }))).status).toBe(200);
    const syncer = await made("sync");
    expect(syncer.hint).toMatch(/^Try it: <code>curl -X POST -H &quot;x-api-key: cs_.{4}…&quot; [^<]+\/api\/v1\/calendars\/sync<\/code>$/);
    expect((await fx.app.fetch(new Request(`${BASE}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": syncer.token } }))).status).toBe(200);
    const writer = await made("write");
    expect(writer.hint).toContain("It can only write");
    expect(writer.hint).toContain("/api/v1/properties/{id}/reservations");
    expect(writer.hint).not.toContain("Try it");
  });

  it("refuses a token without a name or with an expiry not offered", async () => {
    const { owner, client } = await fx.signedIn();
    await client.page("/settings/tokens");
    expect((await client.post("/settings/tokens", { name: " ", expiresInDays: "" })).status).toBe(422);
    expect((await client.post("/settings/tokens", { name: "x", expiresInDays: "9999" })).status).toBe(422);
    expect(await fx.store.listTokens(owner.id)).toEqual([]);
  });

  it("revokes a token: the API then answers 401 revoked_token", async () => {
    const { owner, client } = await fx.signedIn();
    const generated = generateToken();
    const record = await fx.store.createToken({ ownerId: owner.id, name: "old", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
    await client.page("/settings/tokens");
    const revoked = await client.post(`/settings/tokens/${record.id}/revoke`, {});
    expect([revoked.status, revoked.headers.get("location")]).toEqual([303, "/settings/tokens"]);
    const api = await fx.app.fetch(new Request(`${BASE}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": generated.token } }));
    expect([api.status, ((await api.json()) as { error: { code: string } }).error.code]).toEqual([401, "revoked_token"]);
    const page = await client.page("/settings/tokens");
    expect(page).toContain("revoked");
    expect(page).not.toContain(`/settings/tokens/${record.id}/revoke`);
  });
});

describe("timeline", () => {
  it("draws the next 90 nights per calendar, marks a double booking in words, and leaves out cancelled and later stays", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Loft");
    await fx.store.createCalendar({
      propertyId: property.id,
      source: "airbnb",
      url: fx.feeds.url("/tl/airbnb.ics", {
        body: buildIcs([
          { uid: "a", start: day(5), end: day(9), summary: "Reserved" },
          { uid: "gone", start: day(30), end: day(33), summary: "Reserved", status: "CANCELLED" },
          { uid: "far", start: day(120), end: day(124), summary: "Far Future Guest" },
        ]),
      }),
    });
    await fx.store.createCalendar({
      propertyId: property.id,
      source: "vrbo",
      url: fx.feeds.url("/tl/vrbo.ics", { body: buildIcs([{ uid: "v", start: day(7), end: day(10), summary: "Reserved - Maria Lopez" }]) }),
    });
    await client.page("/properties");
    await client.post("/sync", {});
    const html = await client.page(`/properties/${property.id}/timeline`);
    expect(html).toContain("⚠ 1 double booking");
    expect(html).toContain("⚠ Double booking</span>");
    expect(html).toMatch(/<td colspan="4" class="bar-cell"><div class="bar booking source-airbnb conflict"/);
    expect(html).toMatch(/<td colspan="3" class="bar-cell"><div class="bar booking source-vrbo conflict"[^>]*><span aria-hidden="true">⚠ <\/span><span class="bar-text">Maria Lopez<\/span>/);
    expect(html).toMatch(/<td colspan="2" class="bar-cell"><div class="bar conflict-bar"/);
    expect(html).not.toContain("Far Future Guest");
    expect(html.match(/class="bar booking source-airbnb/g)?.length).toBe(1);
    expect(html).toContain("5 of 90 nights taken");
  });
});

describe("timeline and direct stays", () => {
  it("draws direct stays in a row of their own", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Direct Loft");
    const ctx = { store: fx.store, refresh: () => Promise.reject(new Error("no refresh asked for")) };
    const made = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: { kind: "block", arrival: day(3), departure: day(6), summary: "Family week", refresh: false } });
    expect(made.ok).toBe(true);
    const html = await client.page(`/properties/${property.id}/timeline`);
    expect(html).toMatch(/<span class="chip source-direct">direct<\/span>/);
    expect(html).toMatch(/<td colspan="3" class="bar-cell"><div class="bar block source-direct/);
    expect(html).toContain("Family week");
  });
});

describe("timeline and echoes", () => {
  it("draws a channel's echo of a stay as a block saying which channel's stay it repeats, never a double booking", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Echo Loft");
    const airbnb = await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: "https://www.airbnb.com/calendar/ical/1.ics?s=x" });
    const booking = await fx.store.createCalendar({ propertyId: property.id, source: "booking", url: "https://ical.booking.com/v1/export?t=x" });
    const write = (calendarId: string, inserts: DatedEvent[]) => fx.store.applyCalendarSync({
      calendarId, inserts, updates: [], cancels: [], feed: { etag: null, lastModified: null, contentHash: null, lastFound: 1 }, syncedAt: new Date(),
    });
    const stay = datedEvent({ uid: "a", kind: "booking", start: day(5), end: day(9), summary: "Reserved", cancelled: false, details: {}, raw: {} });
    await write(airbnb.id, [stay]);
    const [original] = await fx.store.listReservations({ propertyId: property.id });
    await write(booking.id, [{ ...stay, uid: "e", kind: "block", summary: "CLOSED - Not available", echoOf: original!.id }]);
    const html = await client.page(`/properties/${property.id}/timeline`);
    expect(html).toMatch(/<div class="bar block source-booking" title="booking · CLOSED - Not available · [^"]+ · echo of airbnb stay">/);
    expect(html).toContain(", echo of airbnb stay</span>");
    expect(html).not.toContain("⚠ 1 double booking");
  });
});

