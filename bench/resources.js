// API v1 resources (CONTRACT §14) against their floors, in one run:
// - creating a direct stay with a fresh check of a property's 3 channel calendars (POST …/reservations, which
//   syncs the owner first) against one sync of that property (POST /calendars/sync), both through startServer
//   over HTTP on the same feeds (unchanged: 304s), interleaved, medians;
// - server time of availability for 365 nights of a property with 500 stays, and of one list page of 500
//   (the resource functions the routes call, on the server's store, without the HTTP exchange), medians.
import { generateToken, startServer } from "../dist/server/index.js";
import { createDirectStay, listReservations, propertyAvailability } from "../dist/resources/index.js";
import { percentile, round, seedOwner, tempStore } from "./common.js";

const ROUNDS = 15;
const READS = 60;

/** The figures of the three resource targets. */
export async function runResources({ origins, set }) {
  const { store, dispose } = await tempStore();
  let server;
  try {
    const { ownerId } = await seedOwner(store, { name: "Res", origins, set, count: 3, perProperty: 3 });
    const [property] = await store.listProperties(ownerId);
    const { token, prefix, hash } = generateToken();
    await store.createToken({ ownerId, name: "bench", prefix, hash, expiresAt: null });
    server = await startServer({ store, host: "127.0.0.1", port: 0, allowPrivateNetworks: true, rateLimit: null, apiRateLimit: null, webhooks: false, log: () => {} });
    const call = async (path, body) => {
      const started = performance.now();
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: body && JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) process.stderr.write(`bench resources: ${path} answered ${res.status} ${text.slice(0, 300)}\n`);
      return { ms: performance.now() - started, status: res.status };
    };
    const checks = [];
    const first = await call("/api/v1/calendars/sync");
    checks.push({ ok: first.status === 200, what: "the first sync of the property's 3 calendars answered 200" });
    const sync = [];
    const create = [];
    let created = 0;
    for (let i = 0; i < 3 + ROUNDS; i++) {
      const s = await call("/api/v1/calendars/sync");
      const c = await call(`/api/v1/properties/${property.id}/reservations`, { kind: "booking", arrival: day(250 + i * 2), departure: day(251 + i * 2) });
      if (c.status === 201) created++;
      // The first three rounds warm both paths up.
      if (i >= 3) {
        sync.push(s.ms);
        create.push(c.ms);
      }
    }
    checks.push({ ok: created === 3 + ROUNDS, what: "every direct stay was created (201)" });

    // A second property with 500 one-night stays (days 1–500), then the two reads the routes make.
    const other = await store.createProperty(ownerId, "Res reads");
    for (let i = 0; i < 500; i++) {
      const made = await createDirectStay({ store, refresh: () => Promise.reject(new Error("no refresh")) }, { ownerId, propertyId: other.id, body: { kind: "block", arrival: day(1 + i), departure: day(2 + i), refresh: false } });
      if (!made.ok) throw new Error(`stay ${i}: ${made.message}`);
    }
    const all = await listReservations(store, { ownerId, propertyId: other.id, query: { limit: "500", status: "all" } });
    checks.push({ ok: all.ok && all.value.data.length === 500, what: "a list page holds 500 reservations" });
    const availabilityMs = await timed(() => propertyAvailability(store, { ownerId, propertyId: other.id, query: { from: day(0), to: day(365) } }));
    const pageMs = await timed(() => listReservations(store, { ownerId, propertyId: other.id, query: { limit: "500", status: "all" } }));
    const syncMs = percentile(sync, 50);
    const createMs = percentile(create, 50);
    return {
      syncMs: round(syncMs, 2),
      createMs: round(createMs, 2),
      createOverSync: round(createMs / syncMs, 3),
      availabilityMs: round(availabilityMs, 3),
      pageMs: round(pageMs, 3),
      checks,
    };
  } finally {
    await server?.close();
    await dispose();
  }
}

async function timed(read) {
  for (let i = 0; i < 10; i++) await read();
  const times = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    const result = await read();
    times.push(performance.now() - started);
    if (!result.ok) throw new Error(result.message);
  }
  return percentile(times, 50);
}

function day(offset) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}
