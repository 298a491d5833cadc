// Direct stays on the property page (CONTRACT §14), over the real h3 app, a real store and a loopback feed:
// Add booking and Block nights (post/redirect/get), the refusal in words after a fresh sync of the channels,
// a 422 naming the field, Cancel stay (asked first, on a page of its own), the timeline row, and another
// owner's ids answering 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shortDay } from "../src/server/dashboard/format.js";
import { nightsText, refusalText } from "../src/server/dashboard/pages/direct-stays.js";
import { startDashboardFixture, type DashboardFixture } from "./helpers/dashboard-fixture.js";
import { buildIcs, day } from "./helpers/ics.js";

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
});
afterAll(async () => {
  await fx.close();
});

const flashOf = async (client: { get(path: string): Promise<Response> }, location: string | null) =>
  /<div class="flash (\w+)" role="\w+">([^<]*)<\/div>/.exec(await (await client.get(location!)).text())?.slice(1, 3);

const directStays = async (propertyId: string) => (await fx.store.listReservations({ propertyId })).filter((r) => r.source === "direct");

describe("direct stays on the property page", () => {
  it("adds a booking (post/redirect/get), lists it with Cancel stay, and draws it on the timeline", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Harbour Flat");
    const page = await client.page(`/properties/${property.id}`);
    expect(page).toContain("No upcoming direct stays.");
    expect(page).toMatch(/<span>Arrival<\/span><input type="date" name="arrival"/);
    expect(page).toMatch(/<button type="submit" name="kind" value="booking" class="button primary">Add booking<\/button>/);
    const posted = await client.post(`/properties/${property.id}/stays`, { kind: "booking", arrival: day(10), departure: day(13), summary: "Ana <phone>", note: "late check-in" });
    expect([posted.status, posted.headers.get("location")]).toEqual([303, `/properties/${property.id}#direct-stays`]);
    expect(await flashOf(client, posted.headers.get("location"))).toEqual(["ok", `Added a booking for ${nightsText(day(10), day(13))}.`]);
    const [stay] = await directStays(property.id);
    expect([stay!.kind, stay!.arrival, stay!.departure, stay!.summary]).toEqual(["booking", day(10), day(13), "Ana <phone>"]);
    const after = await client.page(`/properties/${property.id}`);
    expect(after).toContain("Ana &lt;phone&gt;");
    expect(after).not.toContain("Ana <phone>");
    expect(after).toContain("late check-in");
    expect(after).toContain(`<form method="get" action="/stays/${stay!.id}/cancel">`);
    const timeline = await client.page(`/properties/${property.id}/timeline`);
    expect(timeline).toMatch(/<span class="chip source-direct">direct<\/span>/);
    expect(timeline).toMatch(/<div class="bar booking source-direct/);
  });

  it("refuses nights a channel holds after syncing it now, saying which nights and which channel (409), nothing stored", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Channel Flat");
    // The booking is in the feed but no sync has run: only the refresh before the check can see it.
    const feed = fx.feeds.url(`/direct/${property.id}/airbnb.ics`, { body: buildIcs([{ uid: "air-1", start: day(20), end: day(23), summary: "Reserved" }]) });
    await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: feed });
    await client.page(`/properties/${property.id}`);
    const refused = await client.post(`/properties/${property.id}/stays`, { kind: "booking", arrival: day(21), departure: day(25), summary: "Phone guest", note: "" });
    const html = await refused.text();
    expect(refused.status).toBe(409);
    const [airbnb] = (await fx.store.listReservations({ propertyId: property.id })).filter((r) => r.source === "airbnb");
    const words = refusalText(day(21), day(25), [{ reservationId: airbnb!.id, source: "airbnb", arrival: day(20), departure: day(23) }]);
    expect(words).toMatch(/^Not saved: .+ are taken by Airbnb \(.+ → .+\)\. Choose other nights\.$/);
    expect(words).toContain(`taken by Airbnb (${shortDay(day(20))} → ${shortDay(day(23))})`);
    expect(html).toContain(`<div class="flash error" role="alert">${words}</div>`);
    expect(html).toContain(`value="${day(21)}"`);
    expect(html).toContain('value="Phone guest"');
    expect(await directStays(property.id)).toEqual([]);
  });

  it("says which channel calendar could not be refreshed (calendar_not_refreshed) and keeps the stay", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Stale Flat");
    await fx.store.createCalendar({ propertyId: property.id, source: "booking", url: fx.feeds.url(`/direct/${property.id}/down.ics`, { status: 503, body: "maintenance" }) });
    await client.page(`/properties/${property.id}`);
    const posted = await client.post(`/properties/${property.id}/stays`, { kind: "booking", arrival: day(15), departure: day(17), summary: "", note: "" });
    const [tone, text] = (await flashOf(client, posted.headers.get("location")))!;
    expect(tone).toBe("warn");
    expect(text).toContain("Note: Booking.com could not be refreshed just now, so its nights were checked as last synced.");
    expect((await directStays(property.id)).length).toBe(1);
  });

  it("puts the taken nights in words: a run in one month, a single night, another direct stay", () => {
    const conflict = (source: "airbnb" | "booking" | "direct", arrival: string, departure: string) => ({ reservationId: "r", source, arrival, departure });
    expect(refusalText("2030-03-12", "2030-03-20", [conflict("airbnb", "2030-03-10", "2030-03-15")])).toBe(
      "Not saved: 12–14 Mar are taken by Airbnb (10 Mar → 15 Mar). Choose other nights.",
    );
    expect(refusalText("2030-03-30", "2030-04-05", [conflict("booking", "2030-03-31", "2030-04-02"), conflict("direct", "2030-04-04", "2030-04-09")])).toBe(
      "Not saved: 31 Mar – 1 Apr are taken by Booking.com (31 Mar → 2 Apr); 4 Apr is taken by another direct stay (4 Apr → 9 Apr). Choose other nights.",
    );
  });

  it("answers 422 naming the field: a departure not after arrival, a missing arrival", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Field Flat");
    await client.page(`/properties/${property.id}`);
    const backwards = await client.post(`/properties/${property.id}/stays`, { kind: "block", arrival: day(12), departure: day(12), summary: "", note: "" });
    const html = await backwards.text();
    expect(backwards.status).toBe(422);
    expect(html).toContain('<div class="flash error" role="alert">Departure: must be after arrival</div>');
    expect(html).toMatch(/name="departure" value="[^"]*" required aria-invalid="true" aria-describedby="stay-refusal"/);
    const missing = await client.post(`/properties/${property.id}/stays`, { kind: "block", arrival: "", departure: day(12), summary: "", note: "" });
    expect([missing.status, (await missing.text()).includes("Arrival: is required")]).toEqual([422, true]);
    expect(await directStays(property.id)).toEqual([]);
  });

  it("names a stay's nights with the year, both years when it spans New Year", () => {
    expect(nightsText("2027-05-02", "2027-05-06")).toBe("2 May → 6 May 2027 (4 nights)");
    expect(nightsText("2026-12-30", "2027-01-02")).toBe("30 Dec 2026 → 2 Jan 2027 (3 nights)");
    expect(nightsText("2027-01-01", "2027-01-02")).toBe("1 Jan → 2 Jan 2027 (1 night)");
  });

  it("blocks nights, then Cancel stay asks first, and only the confirmed form frees them", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Family Flat");
    await client.page(`/properties/${property.id}`);
    const blocked = await client.post(`/properties/${property.id}/stays`, { kind: "block", arrival: day(30), departure: day(37), summary: "", note: "" });
    expect(await flashOf(client, blocked.headers.get("location"))).toEqual(["ok", `Blocked ${nightsText(day(30), day(37))}.`]);
    const [stay] = await directStays(property.id);
    expect([stay!.kind, stay!.summary, stay!.status]).toEqual(["block", "Blocked", "active"]);
    // The button's name carries the year (nightsText's own test above).
    expect(await client.page(`/properties/${property.id}`)).toContain(`aria-label="Cancel stay ${nightsText(day(30), day(37))}"`);
    // The list's button opens a page that asks; a post without the confirmation (an old page) asks too.
    const asked = await client.page(`/stays/${stay!.id}/cancel`);
    expect(asked).toContain("Cancel this stay?");
    expect(asked).toContain(nightsText(day(30), day(37)));
    expect(asked).toMatch(/<input type="hidden" name="confirm" value="yes">/);
    const unconfirmed = await client.post(`/stays/${stay!.id}/cancel`, {});
    expect([unconfirmed.status, (await unconfirmed.text()).includes("Cancel this stay?")]).toEqual([200, true]);
    expect((await directStays(property.id)).map((r) => r.status)).toEqual(["active"]);
    const cancelled = await client.post(`/stays/${stay!.id}/cancel`, { confirm: "yes" });
    expect([cancelled.status, cancelled.headers.get("location")]).toEqual([303, `/properties/${property.id}#direct-stays`]);
    expect((await flashOf(client, cancelled.headers.get("location")))?.[0]).toBe("ok");
    expect((await directStays(property.id)).map((r) => r.status)).toEqual(["cancelled"]);
    expect(await client.page(`/properties/${property.id}`)).toContain("No upcoming direct stays.");
    // Asked again after the fact: it says the stay is cancelled, and offers nothing to press.
    const again = await client.page(`/stays/${stay!.id}/cancel`);
    expect([again.includes("This stay is cancelled"), again.includes('name="confirm"')]).toEqual([true, false]);
  });

  it("gives another owner's property and stay 404, changing nothing; a channel's stay cannot be cancelled here", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Mine");
    await client.page(`/properties/${property.id}`);
    await client.post(`/properties/${property.id}/stays`, { kind: "booking", arrival: day(40), departure: day(42), summary: "", note: "" });
    const [stay] = await directStays(property.id);
    const other = await fx.signedIn();
    await other.client.page("/properties");
    const create = await other.client.post(`/properties/${property.id}/stays`, { kind: "booking", arrival: day(50), departure: day(52), summary: "", note: "" });
    const cancel = await other.client.post(`/stays/${stay!.id}/cancel`, { confirm: "yes" });
    const unknown = await other.client.post(`/stays/rsv_unknown/cancel`, { confirm: "yes" });
    const asked = await other.client.get(`/stays/${stay!.id}/cancel`);
    expect([create.status, cancel.status, unknown.status, asked.status]).toEqual([404, 404, 404, 404]);
    expect((await directStays(property.id)).map((r) => [r.arrival, r.status])).toEqual([[day(40), "active"]]);

    const feed = fx.feeds.url(`/direct/${property.id}/booking.ics`, { body: buildIcs([{ uid: "b-1", start: day(60), end: day(62), summary: "CLOSED - Not available" }]) });
    await fx.store.createCalendar({ propertyId: property.id, source: "booking", url: feed });
    await client.post("/sync", { back: "/properties" });
    const [channel] = (await fx.store.listReservations({ propertyId: property.id })).filter((r) => r.source === "booking");
    await client.page(`/properties/${property.id}`);
    const refused = await client.post(`/stays/${channel!.id}/cancel`, {});
    expect(await flashOf(client, refused.headers.get("location"))).toEqual(["error", "That stay came from Booking.com: cancel it there."]);
    expect((await fx.store.listReservations({ propertyId: property.id })).find((r) => r.id === channel!.id)?.status).toBe("active");
  });
});
