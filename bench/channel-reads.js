// What each channel has seen (CONTRACT §17), two server-time figures on a SQLite store:
// - what recording a read of a channel link adds to an outbound feed answer: the route's one store call for a
//   read of `exclude=booking` (a link: fetch log + link row + read time) against the same call for
//   `exclude=airbnb,booking` (the fetch log only, a read of nobody's link), interleaved blocks, medians;
// - the channels answer of a property with 5 channel links and 500 stays (the resource function the route calls).
import { channelsOf, createDirectStay } from "../dist/resources/index.js";
import { percentile, round, tempStore } from "./common.js";

const SOURCES = ["airbnb", "booking", "vrbo", "expedia", "google"];
const PER_BLOCK = 200;
const BLOCKS = 9;

/** The figures of the two channel targets. */
export async function runChannelReads() {
  const { store, dispose } = await tempStore();
  try {
    const owner = await store.createOwner("Channels");
    const property = await store.createProperty(owner.id, "Channel reads");
    for (const source of SOURCES) await store.createCalendar({ propertyId: property.id, source, url: `https://example.invalid/${source}.ics` });
    for (let i = 0; i < 500; i++) {
      const made = await createDirectStay({ store, refresh: () => Promise.reject(new Error("no refresh")) }, { ownerId: owner.id, propertyId: property.id, body: { kind: "block", arrival: day(1 + i), departure: day(2 + i), refresh: false } });
      if (!made.ok) throw new Error(`stay ${i}: ${made.message}`);
    }
    const nights = [{ reservationId: "rsv_x", arrival: day(1), departure: day(2) }];
    let t = Date.now();
    const read = (exclude) => store.recordOutboundFetch({ propertyId: property.id, exclude, etag: '"same"', nights, at: new Date(++t), userAgent: "Booking.com iCal" });
    const block = async (exclude) => {
      const started = performance.now();
      for (let i = 0; i < PER_BLOCK; i++) await read(exclude);
      return (performance.now() - started) / PER_BLOCK;
    };
    const times = { link: [], plain: [] };
    await block(["booking"]);
    await block(["airbnb", "booking"]);
    for (let i = 0; i < BLOCKS; i++) {
      times.link.push(await block(["booking"]));
      times.plain.push(await block(["airbnb", "booking"]));
    }
    const linkMs = percentile(times.link, 50);
    const plainMs = percentile(times.plain, 50);

    const answer = () => channelsOf(store, property, { feedBase: "http://127.0.0.1:8787", now: new Date() });
    const channels = await answer();
    const checks = [
      { ok: channels.length === 5, what: "the property has 5 channel links" },
      { ok: channels.find((c) => c.source === "booking")?.reads7d > 0, what: "the reads counted for Booking.com's link" },
    ];
    for (let i = 0; i < 10; i++) await answer();
    const answers = [];
    for (let i = 0; i < 60; i++) {
      const started = performance.now();
      await answer();
      answers.push(performance.now() - started);
    }
    return {
      readWithLinkMs: round(linkMs, 4),
      readWithoutLinkMs: round(plainMs, 4),
      addedMs: round(linkMs - plainMs, 4),
      linkOverPlain: round(linkMs / plainMs, 3),
      channelsAnswerMs: round(percentile(answers, 50), 3),
      checks,
    };
  } finally {
    await dispose();
  }
}

function day(offset) {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
}
