// The store's read for the availability rule (CONTRACT §14, §15), on SQLite and PostgreSQL: the active
// reservations of every calendar of one property with a night in [from, to), and the status of the stays
// their echoes repeat, however far away those stays' dates are.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { availabilityNights } from "../src/engine/availability.js";
import type { CalendarWrite, DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { day } from "./helpers/ics.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

const event = (uid: string, from: number, to: number, extra: Partial<DatedEvent> = {}): DatedEvent => ({
  ...datedEvent({ uid, kind: "booking", start: day(from), end: day(to), summary: "Jane Doe", cancelled: false, details: {}, raw: {} }),
  ...extra,
});
const write = (calendarId: string, parts: Partial<CalendarWrite>): CalendarWrite => ({
  calendarId, inserts: [], updates: [], cancels: [], feed: { etag: null, lastModified: null, contentHash: null, lastFound: 0 },
  syncedAt: new Date(), seenAt: new Date(), ...parts,
});

describe.each(storeKinds())("$name store: availabilityReservations", (kind: StoreKind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("reads the active stays of every calendar overlapping the range, with the status of the stays their echoes repeat", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const owner = await store.createOwner("Ann");
    const loft = await store.createProperty(owner.id, "Loft");
    const other = await store.createProperty(owner.id, "Cabin");
    const airbnb = await store.createCalendar({ propertyId: loft.id, url: "https://www.airbnb.com/calendar/ical/1.ics", source: "airbnb" });
    const booking = await store.createCalendar({ propertyId: loft.id, url: "https://ical.booking.com/v1/export?t=1", source: "booking" });
    const cabin = await store.createCalendar({ propertyId: other.id, url: "https://www.airbnb.com/calendar/ical/2.ics", source: "airbnb" });

    // Airbnb: a stay in range, one that ends the morning `from` begins (no night in range), one far ahead,
    // and one that is cancelled after Booking.com echoed it.
    await store.applyCalendarSync(write(airbnb.id, { inserts: [event("in", 10, 13), event("before", 2, 5), event("far", 100, 102), event("gone", 20, 22)] }));
    const ids = Object.fromEntries((await store.listReservations({ propertyId: loft.id })).map((r) => [r.uid, r.id]));
    await store.applyCalendarSync(write(booking.id, {
      inserts: [
        event("echo-in", 10, 13, { echoOf: ids.in! }),
        event("echo-gone", 20, 22, { echoOf: ids.gone! }),
        event("echo-far", 14, 15, { echoOf: ids.far! }),
        event("echo-unknown", 16, 17, { echoOf: "rsv_nobody", kind: "booking" }),
      ],
    }));
    await store.applyCalendarSync(write(airbnb.id, { cancels: [ids.gone!] }));
    await store.applyCalendarSync(write(cabin.id, { inserts: [event("cabin", 10, 13)] }));

    const rows = await store.availabilityReservations(loft.id, { from: day(5), to: day(30) });
    const bookingIds = Object.fromEntries((await store.listReservations({ propertyId: loft.id })).map((r) => [r.uid, r.id]));
    expect(rows.reservations).toEqual(expect.arrayContaining([
      { id: ids.in, status: "active", arrival: day(10), departure: day(13), echoOf: null, kind: "booking" },
      { id: bookingIds["echo-in"], status: "active", arrival: day(10), departure: day(13), echoOf: ids.in, kind: "booking" },
      { id: bookingIds["echo-gone"], status: "active", arrival: day(20), departure: day(22), echoOf: ids.gone, kind: "booking" },
      { id: bookingIds["echo-far"], status: "active", arrival: day(14), departure: day(15), echoOf: ids.far, kind: "booking" },
      { id: bookingIds["echo-unknown"], status: "active", arrival: day(16), departure: day(17), echoOf: "rsv_nobody", kind: "booking" },
    ]));
    expect(rows.reservations).toHaveLength(5);
    expect(rows.echoTargets).toEqual(expect.arrayContaining([
      { id: ids.in, status: "active" },
      { id: ids.gone, status: "cancelled" },
      { id: ids.far, status: "active" },
    ]));
    expect(rows.echoTargets).toHaveLength(3);

    // Through the rule: the cancelled stay's echo frees its nights; the far stay's echo and the unknown one do not.
    const nights = availabilityNights(rows.reservations, { from: day(5), to: day(30), targetStatus: new Map(rows.echoTargets.map((t) => [t.id, t.status])) });
    const taken = nights.filter((n) => !n.available).map((n) => n.date);
    expect(taken).toEqual([day(10), day(11), day(12), day(14), day(16)]);
  });
});
