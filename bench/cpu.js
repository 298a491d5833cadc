// CPU per calendar without the network: the steps syncOwner runs on a fetched body (content hash,
// parseFeed, read stored reservations, diffReservations, applyCalendarSync), in a loop over
// pre-generated 20-event bodies on a real SQLite file. Measured with process.cpuUsage, so waiting
// costs nothing and only the work this process does is counted; phases are split by wall clock.
import { createHash } from "node:crypto";
import { diffReservations } from "../dist/engine/diff.js";
import { parseFeed } from "../dist/engine/parse-feed.js";
import { round, tempStore } from "./common.js";
import { EVENTS_PER_FEED, feedBody } from "./feeds.js";
import { runUnchangedCpu } from "./unchanged-cpu.js";

/** Times `calendars` first syncs (20 inserts each), then a changed re-sync of each, after `warmUp` untimed ones. */
export async function runCpu({ calendars = 1000, warmUp = 200, origins }) {
  // The unchanged re-sync through syncOwner needs the feed host (issue 40): run when run.js gives one.
  const unchanged = origins?.length ? await runUnchangedCpu({ origins, n: calendars }) : undefined;
  const { store, dispose } = await tempStore();
  try {
    const today = new Date();
    const owner = await store.createOwner("CPU");
    const ids = [];
    for (let i = 0; i < warmUp + calendars; i++) {
      const property = await store.createProperty(owner.id, `Property ${String(i).padStart(6, "0")}`);
      const url = `https://www.airbnb.com/calendar/ical/${i}.ics?s=bench`;
      ids.push((await store.createCalendar({ propertyId: property.id, url, source: "airbnb" })).id);
    }
    const bodies = (version) => ids.map((_, i) => feedBody(i, version, today));
    const v0 = bodies(0);
    const v1 = bodies(1);

    const warm = { ids: ids.slice(0, warmUp), v0: v0.slice(0, warmUp), v1: v1.slice(0, warmUp) };
    const timedIds = ids.slice(warmUp);
    await loop(store, warm.ids, warm.v0, newPhases());
    await loop(store, warm.ids, warm.v1, newPhases());

    const { seen: created, ...create } = await measure(store, timedIds, v0.slice(warmUp));
    const { seen: changed, ...change } = await measure(store, timedIds, v1.slice(warmUp));
    return {
      calendars,
      eventsPerFeed: EVENTS_PER_FEED,
      bodyBytes: Math.round(v0.reduce((sum, body) => sum + body.length, 0) / v0.length),
      create,
      change,
      ...(unchanged ? { unchanged } : {}),
      checks: [
        { ok: created.created === calendars * EVENTS_PER_FEED, what: "every first sync created 20 events" },
        { ok: changed.changedCalendars === calendars, what: "every changed feed changed its calendar" },
      ],
    };
  } finally {
    await dispose();
  }
}

async function measure(store, ids, bodies) {
  const phases = newPhases();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const seen = await loop(store, ids, bodies, phases);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const per = (ms) => round(ms / ids.length, 4);
  return {
    cpuMsPerCalendar: per((cpu.user + cpu.system) / 1000),
    wallMsPerCalendar: per(wallMs),
    phasesMsPerCalendar: Object.fromEntries(Object.entries(phases).map(([name, ms]) => [name, per(ms)])),
    seen,
  };
}

function newPhases() {
  return { hash: 0, parse: 0, read: 0, diff: 0, write: 0 };
}

// The body of syncOwner's per-calendar step, after the fetch, with a stopwatch between the steps.
async function loop(store, ids, bodies, phases) {
  let created = 0;
  let changedCalendars = 0;
  for (let i = 0; i < ids.length; i++) {
    const calendarId = ids[i];
    const body = bodies[i];
    let t = performance.now();
    const lap = (name) => {
      const now = performance.now();
      phases[name] += now - t;
      t = now;
    };
    const contentHash = createHash("sha256").update(body).digest("hex");
    lap("hash");
    const now = new Date();
    const parsed = parseFeed(body, { source: "airbnb", now });
    if (!parsed.ok) throw new Error(`bench feed ${i} did not parse: ${parsed.error.message}`);
    lap("parse");
    const stored = await store.calendarReservations(calendarId);
    lap("read");
    const diff = diffReservations(stored, parsed.events, { now });
    lap("diff");
    await store.applyCalendarSync({
      calendarId,
      inserts: diff.inserts,
      updates: diff.updates,
      cancels: diff.cancels,
      feed: { etag: `"${i}"`, lastModified: null, contentHash, lastFound: diff.counts.found },
      syncedAt: now,
    });
    lap("write");
    created += diff.counts.created;
    if (diff.counts.created + diff.counts.updated + diff.counts.cancelled > 0) changedCalendars++;
  }
  return { created, changedCalendars };
}
