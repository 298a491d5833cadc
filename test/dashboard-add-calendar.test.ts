// The dashboard's "Add calendar" in two steps, over the real h3 app, a real store and loopback feeds:
// the form checks the link and shows what `calsync calendar test` shows, storing nothing; "Save
// calendar" checks again and saves without fetching the feed a second time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longDay } from "../src/server/dashboard/format.js";
import type { PageClient } from "./helpers/dashboard-client.js";
import { startDashboardFixture, type DashboardFixture } from "./helpers/dashboard-fixture.js";
import { DAMAGES, damageEvent } from "./helpers/damage.js";
import { buildIcs, day } from "./helpers/ics.js";

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
});
afterAll(async () => {
  await fx.close();
});

const AIRBNB_FEED = buildIcs([
  { uid: "a", start: day(3), end: day(6), summary: "Reserved" },
  { uid: "b", start: day(10), end: day(12), summary: "Reserved" },
  { uid: "c", start: day(20), end: day(22), summary: "Airbnb (Not available)" },
  { uid: "gone", start: day(30), end: day(33), summary: "Reserved", status: "CANCELLED" },
]);
const HTML_PAGE = { body: "<!DOCTYPE html><html><body>Lovely loft</body></html>", headers: { "content-type": "text/html" } };

/** A signed-in owner with one property, its page read (so the client holds its CSRF token). */
async function ownerWithProperty(name = "Loft") {
  const { owner, client } = await fx.signedIn();
  const property = await fx.store.createProperty(owner.id, name);
  await client.page(`/properties/${property.id}`);
  return { owner, client, property };
}

/** Submits the add form (step 1) and returns the answer's status and HTML. */
async function preview(client: PageClient, propertyId: string, fields: { url: string; source: string }) {
  const response = await client.post(`/properties/${propertyId}/calendars`, fields);
  return { status: response.status, html: await response.text() };
}

/** The hidden fields of the preview's "Save calendar" form, as a browser would send them. */
function saveFields(html: string): Record<string, string> {
  const form = /<form[^>]*>((?:(?!<\/form>)[\s\S])*Save calendar<\/button><\/form>)/.exec(html)?.[1];
  expect(form, "a Save calendar form").toBeDefined();
  const fields: Record<string, string> = {};
  for (const [, name, value] of form!.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) fields[name!] = unescapeHtml(value!);
  delete fields.csrf;
  return fields;
}

function unescapeHtml(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"' };
  return text.replace(/&(#\d+|\w+);/g, (whole, entity: string) =>
    entity.startsWith("#") ? String.fromCharCode(Number(entity.slice(1))) : (named[entity] ?? whole),
  );
}

const flashOf = async (client: PageClient, location: string | null) =>
  /<div class="flash (\w+)" role="\w+">([^<]*)<\/div>/.exec(await (await client.get(location!)).text())?.slice(1, 3);
const requestsTo = (path: string) => fx.feeds.requests.filter((request) => request.path.startsWith(path)).length;
const dd = (term: string, html: string) => new RegExp(`<dt>${term}</dt><dd>(.*?)</dd>`).exec(html)?.[1];

describe("Add calendar, step 1: the preview", () => {
  it("shows what the feed holds, as calendar test does, and stores nothing", async () => {
    const { client, property } = await ownerWithProperty();
    const feed = fx.feeds.url("/preview/airbnb.ics", { body: AIRBNB_FEED });
    const { status, html } = await preview(client, property.id, { url: `${feed}?s=4f9d2c81b7e64a0f`, source: "airbnb" });
    expect(status).toBe(200);
    expect(html).toContain("Check this calendar before saving");
    expect(html).toContain("Readable: a sync will import 2 bookings and 1 block.");
    expect([dd("Bookings", html), dd("Blocks", html)]).toEqual(["2", "1"]);
    expect(dd("First night", html)).toBe(`<time datetime="${day(3)}">${longDay(day(3))}</time>`);
    expect(dd("Last night", html)).toBe(`<time datetime="${day(21)}">${longDay(day(21))}</time>`);
    expect(html).toContain("<code>" + `${feed}?s=***`.replace(/&/g, "&amp;") + "</code>");
    expect(html).toContain('<a class="button ghost" href="/properties/' + property.id + '">Cancel</a>');
    expect(requestsTo("/preview/airbnb.ics")).toBe(1);
    expect(await fx.store.listCalendars({ propertyId: property.id })).toEqual([]);
    expect(await client.page(`/properties/${property.id}`)).toContain("No calendars yet.");
  });

  it("names the channel it detected when none was chosen, and lists unreadable events as warnings", async () => {
    const { client, property } = await ownerWithProperty();
    const body = damageEvent(buildIcs([{ uid: "a@x", start: day(4), end: day(6) }, { uid: "b@x", start: day(8), end: day(9) }]), "a@x", DAMAGES[0]!);
    const { status, html } = await preview(client, property.id, { url: fx.feeds.url("/preview/damaged.ics", { body }), source: "" });
    expect(status).toBe(200);
    expect(dd("Channel", html)).toContain('<span class="chip source-other">other</span> <span class="hint">detected from the link</span>');
    expect(html).toContain("Readable: a sync will import 1 booking and 0 blocks. Some events cannot be read; see below.");
    expect(html).toMatch(/<h3>1 warning<\/h3><ul class="preview-warnings"><li><code>unreadable_event<\/code> <span class="muted">a@x<\/span>: DTSTART /);
    expect(saveFields(html)).toMatchObject({ source: "", confirm: "1" });
  });

  it("shows a feed answering 503 with its error, says it cannot be read now, and still offers to save it", async () => {
    const { client, property } = await ownerWithProperty();
    const { status, html } = await preview(client, property.id, { url: fx.feeds.url("/preview/down.ics", { status: 503 }), source: "booking" });
    expect(status).toBe(200);
    expect(html).toContain("This feed cannot be read right now: a sync would fail it with http_error.");
    expect(dd("Error", html)).toBe('<code>http_error</code><div class="error-text">feed answered HTTP 503</div>');
    expect(dd("Bookings", html)).toBeUndefined();
    expect(html).toContain("Save calendar</button>");
    expect(await fx.store.listCalendars({ propertyId: property.id })).toEqual([]);
  });

  it("shows an Airbnb listing page's error with where Airbnb shows the export link", async () => {
    const { client, property } = await ownerWithProperty();
    const { html } = await preview(client, property.id, { url: fx.feeds.url("/rooms/123", HTML_PAGE), source: "airbnb" });
    expect(dd("Error", html)).toContain("<code>not_icalendar</code>");
    expect(html).toContain("this is an Airbnb listing page, not a calendar export");
    expect(html).toContain("Availability → Connect calendars → Export calendar");
    expect(html).toContain("Save calendar</button>");
  });

  it("refuses a feed that is already a calendar of the property, naming it, without fetching it", async () => {
    const { client, property } = await ownerWithProperty();
    const feed = fx.feeds.url("/preview/dup.ics", { body: AIRBNB_FEED });
    const existing = await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: feed });
    const { status, html } = await preview(client, property.id, { url: `${feed.replace("http://", "webcal://")}/`, source: "" });
    expect(status).toBe(422);
    expect(html).toContain(`this feed is already calendar ${existing.id} of &quot;Loft&quot;`);
    expect(html).not.toContain("Save calendar");
    expect(requestsTo("/preview/dup.ics")).toBe(0);
    expect((await fx.store.listCalendars({ propertyId: property.id })).map((c) => c.id)).toEqual([existing.id]);
  });

  it("notes the same feed on another property of the owner, before and after saving", async () => {
    const { owner, client, property } = await ownerWithProperty("Second");
    const first = await fx.store.createProperty(owner.id, "First");
    const feed = fx.feeds.url("/preview/shared.ics", { body: AIRBNB_FEED });
    const existing = await fx.store.createCalendar({ propertyId: first.id, source: "vrbo", url: feed });
    const { status, html } = await preview(client, property.id, { url: feed, source: "vrbo" });
    expect(status).toBe(200);
    expect(html).toContain(`Note: the same feed is already calendar ${existing.id} of &quot;First&quot;`);
    const saved = await client.post(`/properties/${property.id}/calendars`, saveFields(html));
    const [tone, text] = (await flashOf(client, saved.headers.get("location")))!;
    expect(tone).toBe("warn");
    expect(text).toContain(`Added the vrbo calendar. Sync now to import its bookings and blocks. Note: the same feed is already calendar ${existing.id}`);
  });
});

describe("Add calendar, step 2: Save calendar", () => {
  it("saves the previewed link and channel without fetching the feed again", async () => {
    const { client, property } = await ownerWithProperty();
    const url = `${fx.feeds.url("/save/airbnb.ics", { body: AIRBNB_FEED })}?s=4f9d2c81b7e64a0f&lang=en`;
    const { html } = await preview(client, property.id, { url, source: "airbnb" });
    expect(saveFields(html)).toEqual({ url, source: "airbnb", confirm: "1" });
    const saved = await client.post(`/properties/${property.id}/calendars`, saveFields(html));
    expect([saved.status, saved.headers.get("location")]).toEqual([303, `/properties/${property.id}`]);
    expect(await flashOf(client, saved.headers.get("location"))).toEqual(["ok", "Added the airbnb calendar. Sync now to import its bookings and blocks."]);
    expect(requestsTo("/save/airbnb.ics")).toBe(1);
    const calendars = await fx.store.listCalendars({ propertyId: property.id });
    expect(calendars.map((c) => [c.source, c.url])).toEqual([["airbnb", url]]);
    const page = await client.page(`/properties/${property.id}`);
    expect(page).toContain("/save/airbnb.ics?s=***&amp;lang=***");
    expect(page).not.toContain("4f9d2c81b7e64a0f");
  });

  it("saves a feed whose preview failed, detecting the channel as the preview did", async () => {
    const { client, property } = await ownerWithProperty();
    const { html } = await preview(client, property.id, { url: fx.feeds.url("/save/down.ics", { status: 503 }), source: "" });
    const saved = await client.post(`/properties/${property.id}/calendars`, saveFields(html));
    expect(saved.status).toBe(303);
    expect((await flashOf(client, saved.headers.get("location")))?.[1]).toBe("Added the other calendar. Sync now to import its bookings and blocks.");
    expect((await fx.store.listCalendars({ propertyId: property.id })).map((c) => c.source)).toEqual(["other"]);
  });

  it("carries a typed URL with quotes and angle brackets to the store unchanged, escaped on the page", async () => {
    const { client, property } = await ownerWithProperty();
    const url = `${fx.feeds.url("/save/odd.ics", { body: AIRBNB_FEED })}?a="><b>x</b>&c='1'`;
    const { status, html } = await preview(client, property.id, { url, source: "" });
    expect(status).toBe(200);
    expect(html).not.toContain("<b>x</b>");
    await client.post(`/properties/${property.id}/calendars`, saveFields(html));
    expect((await fx.store.listCalendars({ propertyId: property.id })).map((c) => c.url)).toEqual([url]);
  });

  it("checks again: a second Save of the same preview is refused naming the calendar the first one saved", async () => {
    const { client, property } = await ownerWithProperty();
    const { html } = await preview(client, property.id, { url: fx.feeds.url("/save/twice.ics", { body: AIRBNB_FEED }), source: "airbnb" });
    expect((await client.post(`/properties/${property.id}/calendars`, saveFields(html))).status).toBe(303);
    const [saved] = await fx.store.listCalendars({ propertyId: property.id });
    const again = await client.post(`/properties/${property.id}/calendars`, saveFields(html));
    const page = await again.text();
    expect(again.status).toBe(422);
    expect(page).toContain(`this feed is already calendar ${saved!.id}`);
    expect(page).toContain('name="url" value="' + fx.feeds.url("/save/twice.ics") + '"');
    expect((await fx.store.listCalendars({ propertyId: property.id })).length).toBe(1);
  });

  it("refuses at Save what the preview refuses: not a feed URL, an unknown channel, calsync's own outbound feed", async () => {
    const { client, property } = await ownerWithProperty();
    const feedToken = await fx.store.propertyFeedToken(property.id);
    const cases: Array<[Record<string, string>, string]> = [
      [{ url: "ftp://example.com/x.ics", source: "" }, "must be an http://, https:// or webcal:// address"],
      [{ url: "https://example.com/x.ics", source: "myspace" }, "Choose a channel from the list."],
      [{ url: `https://cal.example.com/ical/${feedToken}.ics?exclude=airbnb`, source: "" }, "this property&#39;s own outbound feed"],
    ];
    for (const [fields, message] of cases) {
      const response = await client.post(`/properties/${property.id}/calendars`, { ...fields, confirm: "1" });
      expect(response.status, fields.url).toBe(422);
      expect(await response.text(), fields.url).toContain(message);
    }
    expect(await fx.store.listCalendars({ propertyId: property.id })).toEqual([]);
  });

  it("needs the page's CSRF token and the dashboard's own origin", async () => {
    const { client, property } = await ownerWithProperty();
    const { html } = await preview(client, property.id, { url: fx.feeds.url("/save/csrf.ics", { body: AIRBNB_FEED }), source: "" });
    const fields = saveFields(html);
    expect((await client.post(`/properties/${property.id}/calendars`, fields, { csrf: null })).status).toBe(403);
    expect((await client.post(`/properties/${property.id}/calendars`, fields, { csrf: "x".repeat(43) })).status).toBe(403);
    expect((await client.post(`/properties/${property.id}/calendars`, fields, { origin: "http://calsync.test:1234" })).status).toBe(403);
    expect(await fx.store.listCalendars({ propertyId: property.id })).toEqual([]);
    expect((await client.post(`/properties/${property.id}/calendars`, fields)).status).toBe(303);
  });
});
