// Turnovers and the private feeds (CONTRACT §18) against their targets, in one run (server time: the functions
// the routes call, on a real SQLite store, without the HTTP exchange; medians):
// - the turnovers of an owner with 50 properties and 5,000 stays (100 back-to-back one-night stays each), 90 days;
// - the cleaning feed and the owner's calendar of one property with 100 stays, each over the outbound feed's time
//   for the same property.
import { createDirectStay, listTurnovers } from "../dist/resources/index.js";
import { renderCleaningFeed } from "../dist/server/cleaning-feed.js";
import { renderOwnerCalendar } from "../dist/server/owner-calendar-route.js";
import { renderPropertyFeed } from "../dist/server/property-feed.js";
import { percentile, round, tempStore } from "./common.js";

const PROPERTIES = 50;
const STAYS = 100;
const READS = 40;

/** The figures of the turnover targets. */
export async function runTurnovers() {
  const { store, dispose } = await tempStore();
  try {
    const owner = await store.createOwner("Turnovers");
    const ctx = { store, refresh: () => Promise.reject(new Error("no refresh")) };
    for (let p = 0; p < PROPERTIES; p++) {
      const property = await store.createProperty(owner.id, `House ${p}`, "Europe/Lisbon");
      for (let i = 0; i < STAYS; i++) {
        // Back to back with a free night every third stay: same-day, tight and plain turnovers all occur.
        const arrival = day(1 + i + Math.floor(i / 3));
        const made = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: { kind: "booking", arrival, departure: day(2 + i + Math.floor(i / 3)), refresh: false } });
        if (!made.ok) throw new Error(`stay ${i}: ${made.message}`);
      }
      // Set after the stays, which the buffer would keep apart: back-to-back ones are then tight turnovers.
      await store.updateProperty(property.id, { bufferNights: 1 });
    }
    const query = { from: day(0), to: day(90), limit: "500" };
    const all = await listTurnovers(store, { ownerId: owner.id, query });
    const checks = [{ ok: all.ok && all.value.data.length > 0, what: "the owner's turnovers list answered" }];
    const turnoversMs = await timed(() => listTurnovers(store, { ownerId: owner.id, query }));
    const stays = (await store.listReservations({ ownerId: owner.id, status: "active" })).length;
    checks.push({ ok: stays === PROPERTIES * STAYS, what: `the owner holds ${stays} active stays` });

    // One property of an owner of its own: the three feeds over the same stays.
    const single = await store.createOwner("Feeds");
    const [first] = await store.listProperties(owner.id);
    const house = await store.createProperty(single.id, "Feed house", "Europe/Lisbon");
    for (let i = 0; i < STAYS; i++) {
      await createDirectStay(ctx, { ownerId: single.id, propertyId: house.id, body: { kind: "booking", arrival: day(1 + 2 * i), departure: day(2 + 2 * i), refresh: false } });
    }
    const fresh = await store.getProperty(house.id);
    const outboundMs = await timed(() => renderPropertyFeed(store, fresh, []));
    const cleaningMs = await timed(() => renderCleaningFeed(store, { ownerId: single.id, propertyId: house.id }, "Cleaning"));
    const ownerMs = await timed(() => renderOwnerCalendar(store, single.id, "Stays"));
    const cleaning = await renderCleaningFeed(store, { ownerId: single.id, propertyId: house.id }, "Cleaning");
    checks.push({ ok: cleaning.events === STAYS, what: `the cleaning feed holds ${cleaning.events} events` });
    void first;
    return {
      turnoversMs: round(turnoversMs, 3),
      outboundMs: round(outboundMs, 3),
      cleaningMs: round(cleaningMs, 3),
      ownerCalendarMs: round(ownerMs, 3),
      cleaningOverOutbound: round(cleaningMs / outboundMs, 3),
      ownerCalendarOverOutbound: round(ownerMs / outboundMs, 3),
      checks,
    };
  } finally {
    await dispose();
  }
}

async function timed(read) {
  for (let i = 0; i < 10; i++) await read();
  const times = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

function day(offset) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}
