// The owner's own calendar (CONTRACT §18) on a real server and both stores with real loopback feeds: every stay of
// every property at its check-in/check-out times with channel, summary, note and the channel's DESCRIPTION lines
// (Airbnb's "Reservation URL", "Phone Number (Last 4 Digits)"), blocks marked, no other owner's stays, its own
// secret, Cache-Control: private, revocable; access logs never show its token.
import { afterAll, describe, expect, it } from "vitest";
import { maskFeedPath } from "../src/server/outbound-route.js";
import { openStore } from "../src/store/open-store.js";
import { runCli } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

const AIRBNB_DESCRIPTION = "Reservation URL: https://www.airbnb.com/hosting/reservations/details/HMABC12345\nPhone Number (Last 4 Digits): 1234";

describe.each(storeKinds())("the owner's calendar on $name", (kind: StoreKind) => {
  const { serve, feed } = useServerFixtures(kind);
  const opened: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  it("carries every stay with the channel's description lines and the note, blocks marked, and no other owner's stays", async () => {
    const location = await kind.create();
    const store = await openStore(location);
    opened.push(store);
    const ann = await ownerWith(store, "Ann", {
      Loft: [{ source: "airbnb", url: feed({ body: buildIcs([
        { uid: "a1", start: day(10), end: day(13), summary: "Reserved", description: AIRBNB_DESCRIPTION },
        { uid: "blk", start: day(20), end: day(22), summary: "Airbnb (Not available)" },
      ]) }) }],
    });
    const bob = await ownerWith(store, "Bob", { Barn: [{ source: "vrbo", url: feed({ body: buildIcs([{ uid: "v", start: day(10), end: day(12), summary: "Reserved - Bobsguest" }]) }) }] });
    const loft = ann.propertyIds.Loft!;
    await store.updateProperty(loft, { timeZone: "Europe/Lisbon", checkInTime: "16:00", checkOutTime: "10:00" });
    const server = await serve(store);
    for (const owner of [ann, bob]) expect((await post(server, owner.token)).status).toBe(200);
    const direct = await fetch(`${server.url}/api/v1/properties/${loft}/reservations`, {
      method: "POST",
      headers: { "x-api-key": ann.token, "content-type": "application/json" },
      body: JSON.stringify({ kind: "booking", arrival: day(30), departure: day(33), summary: "Phone booking", note: "Late arrival, key in box", refresh: false }),
    });
    expect(direct.status).toBe(201);

    const env = { CALSYNC_DB: location, CALSYNC_BASE_URL: server.url };
    const made = await runCli(["owner", "calendar", "--owner", "Ann", "--json"], { env });
    expect(made.code).toBe(0);
    const { url } = JSON.parse(made.stdout) as { url: string };
    expect(url).toMatch(new RegExp(`^${server.url}/ical/owner/[A-Za-z0-9]{32}\\.ics$`));
    expect(url).not.toContain((await store.propertyFeedToken(loft))!);

    const res = await fetch(url);
    expect([res.status, res.headers.get("cache-control")]).toEqual([200, "private, no-cache"]);
    const body = (await res.text()).replace(/\r\n[ \t]/g, "");
    expect(body).toContain("SUMMARY:Loft · airbnb · Reserved\r\n");
    expect(body).toContain("DESCRIPTION:Reservation URL: https://www.airbnb.com/hosting/reservations/details/HMABC12345\\nPhone Number (Last 4 Digits): 1234");
    expect(body).toContain(`DTSTART;TZID=Europe/Lisbon:${day(10).replaceAll("-", "")}T160000`);
    expect(body).toContain(`DTEND;TZID=Europe/Lisbon:${day(13).replaceAll("-", "")}T100000`);
    expect(body).toContain("SUMMARY:Loft · airbnb · Blocked: Airbnb (Not available)");
    expect(body).toContain("SUMMARY:Loft · direct · Phone booking");
    expect(body).toContain("DESCRIPTION:Note: Late arrival\\, key in box");
    expect(body).toContain("BEGIN:VTIMEZONE\r\nTZID:Europe/Lisbon");
    expect(body).not.toContain("Bobsguest");
    expect(body).not.toContain("Barn");

    expect((await runCli(["owner", "calendar", "--owner", "Ann", "--revoke"], { env })).code).toBe(0);
    expect((await fetch(url)).status).toBe(404);
  });

  it("keeps its token out of access logs", () => {
    expect(maskFeedPath("/ical/owner/AbC123.ics")).toBe("/ical/owner/***.ics");
    expect(maskFeedPath("/cleaning/AbC123.ics")).toBe("/cleaning/***.ics");
    expect(maskFeedPath("/ical/AbC123.ics")).toBe("/ical/***.ics");
  });
});
