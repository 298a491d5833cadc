// Direct stays join everything that reasons in nights (CONTRACT §14): the outbound feed whatever `exclude`, another
// calendar's import of it, double bookings with their webhook, `reservations`, `export`, the §11 webhooks.
import { describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { propertyAvailability } from "../src/resources/index.js";
import { openStore } from "../src/store/index.js";
import { runCli } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";

const { dbPath, serve, feed } = useServerFixtures();

describe("a direct stay", () => {
  it("is in the outbound feed whatever exclude says, and closes its nights on another calendar's import", async () => {
    const store = await openStore(dbPath());
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: buildIcs([]) }) }] });
    const server = await serve(store, { webhooks: false });
    const loft = ann.propertyIds.Loft!;
    const res = await fetch(`${server.url}/api/v1/properties/${loft}/reservations`, {
      method: "POST",
      headers: { "x-api-key": ann.token, "content-type": "application/json" },
      body: JSON.stringify({ kind: "booking", arrival: day(20), departure: day(23), summary: "Phone: Mr Lee", note: "cash" }),
    });
    expect(res.status).toBe(201);
    await store.propertyFeedToken(loft);
    const { feedUrl } = (await (await fetch(`${server.url}/api/v1/properties/${loft}`, { headers: { "x-api-key": ann.token } })).json()) as { feedUrl: string };
    const exported = await (await fetch(`${feedUrl}?exclude=airbnb,booking,vrbo`)).text();
    expect(exported).toContain(`DTSTART;VALUE=DATE:${day(20).replaceAll("-", "")}`);
    expect(exported).not.toContain("Mr Lee");
    expect(exported).not.toContain("cash");

    // Another calsync (a channel, as far as the feed goes) imports it as Booking.com would.
    const elsewhere = await openStore(dbPath());
    try {
      const bob = await ownerWith(elsewhere, "Bob", { Loft: [{ source: "booking", url: `${feedUrl}?exclude=booking` }] });
      const run = await syncOwner({ store: elsewhere, ownerId: bob.ownerId, allowPrivateNetworks: true });
      expect(run.ok).toBe(true);
      const nights = await propertyAvailability(elsewhere, { ownerId: bob.ownerId, propertyId: bob.propertyIds.Loft!, query: { from: day(19), to: day(24) } });
      expect(nights.ok && nights.value.nights.map((n) => n.available)).toEqual([true, false, false, false, true]);
    } finally {
      await elsewhere.close();
    }

    const listed = JSON.parse((await runCli(["reservations", "--json", "--db", store.path])).stdout) as Array<{ source: string; arrival: string }>;
    expect(listed).toEqual([expect.objectContaining({ source: "direct", arrival: day(20), departure: day(23) })]);
    const cliExport = await runCli(["export", "--property", loft, "--exclude", "airbnb", "--db", store.path]);
    expect(cliExport.stdout).toContain(`DTSTART;VALUE=DATE:${day(20).replaceAll("-", "")}`);
    await store.close();
  });

  it("is a double booking with a channel's stay that later overlaps it, announced by webhook with its own reservation.* events", async () => {
    const store = await openStore(dbPath());
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: buildIcs([]) }) }] });
    await store.createWebhookEndpoint({ ownerId: ann.ownerId, url: "https://hooks.example.com/in", events: ["*"], secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0" });
    const server = await serve(store, { webhooks: false });
    const loft = ann.propertyIds.Loft!;
    const call = (method: string, url: string, body?: unknown) =>
      fetch(`${server.url}${url}`, { method, headers: { "x-api-key": ann.token, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const stay = (await (await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "booking", arrival: day(20), departure: day(23) })).json()) as { id: string };
    await call("PATCH", `/api/v1/reservations/${stay.id}`, { departure: day(24) });

    // The channel sells overlapping nights before it fetched calsync's feed: its calendar now answers them.
    const calendar = (await store.listCalendars({ propertyId: loft }))[0]!;
    await store.removeCalendar(calendar.id);
    await store.createCalendar({ propertyId: loft, source: "airbnb", url: feed({ body: buildIcs([{ uid: "late", start: day(22), end: day(25), summary: "Reserved" }]) }) });
    const sync = (await (await call("POST", "/api/v1/calendars/sync")).json()) as { conflicts?: Array<{ reservations: Array<{ id: string; source: string }> }> };
    expect(sync.conflicts).toHaveLength(1);
    expect(sync.conflicts![0]!.reservations.map((r) => r.source).sort()).toEqual(["airbnb", "direct"]);
    await call("DELETE", `/api/v1/reservations/${stay.id}`);

    const types = (await store.listWebhookDeliveries({ ownerId: ann.ownerId, limit: 50 })).map((d) => d.type);
    expect(types).toEqual(expect.arrayContaining(["reservation.created", "reservation.updated", "reservation.cancelled", "booking.conflict"]));
    expect(types.filter((t) => t.startsWith("reservation."))).toHaveLength(4); // the direct stay's three, the channel's one
    await store.close();
  });
});
