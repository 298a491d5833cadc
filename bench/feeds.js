// Generated Airbnb-shaped feeds for the benchmark: ~20 events per feed, dates relative to today,
// deterministic per (feed index, version) so every run and every process serves the same bytes.

/** Events in one generated feed (the "~20 events"). */
export const EVENTS_PER_FEED = 20;

/** Feeds fetched (floor) or synced (engine) before timing starts, so pools and the JIT are warm. */
export const WARM_UP_FEEDS = 16;

/** Calendars per property: Airbnb plus one other channel, the usual set-up. */
export const CALENDARS_PER_PROPERTY = 2;

/**
 * The .ics body of feed `index` at `version` (0 = as first served). Feeds `k·perProperty … +perProperty−1`
 * are the calendars of one property: they share one timeline of stays, each channel lists its own
 * stays as "Reserved" and the other channels' as "Airbnb (Not available)" blocks, as channels that
 * import each other's calendars do, so a property has no double booking. A later version shortens
 * one upcoming stay by a night (later check-in), drops another and adds a new one after the others:
 * a realistic edit that stays well under the mass-cancellation guard and double-books nothing.
 */
export function feedBody(index, version, today = new Date(), perProperty = CALENDARS_PER_PROPERTY) {
  const property = Math.floor(index / perProperty);
  const channel = index % perProperty;
  const random = prng(property + 1);
  const stamp = `${ymd(today)}T060000Z`;
  const events = [];
  // Start a month back: Airbnb keeps recent past stays in the feed for a while.
  let day = -30 + Math.floor(random() * 5);
  for (let n = 0; n < EVENTS_PER_FEED - 1; n++) {
    const nights = 2 + Math.floor(random() * 6);
    const ownerBlock = random() < 0.2;
    const mine = n % perProperty === channel;
    events.push({ n, from: day, to: day + nights, block: ownerBlock || !mine, code: reservationCode(random), phone: 1000 + Math.floor(random() * 9000) });
    day += nights + Math.floor(random() * 6);
  }
  if (version > 0) {
    // Upcoming stays of this channel only, so the change is an update and a cancellation, never a
    // past stay dropped, and never a night another channel holds.
    const upcoming = events.filter((event) => event.from > 7 && !event.block);
    const moved = upcoming[version % upcoming.length];
    if (moved) moved.from += 1;
    const dropped = upcoming[(version + 3) % upcoming.length];
    if (dropped && dropped !== moved) events.splice(events.indexOf(dropped), 1);
    const from = day + 2 + 4 * channel;
    events.push({ n: 1000 + version, from, to: from + 3, block: false, code: reservationCode(random), phone: 4242 });
  }

  const lines = [
    "BEGIN:VCALENDAR",
    "PRODID:-//Airbnb Inc//Hosting Calendar 0.8.8//EN",
    "CALSCALE:GREGORIAN",
    "VERSION:2.0",
  ];
  for (const event of events) {
    lines.push(
      "BEGIN:VEVENT",
      `DTSTAMP:${stamp}`,
      `DTSTART;VALUE=DATE:${ymd(addDays(today, event.from))}`,
      `DTEND;VALUE=DATE:${ymd(addDays(today, event.to))}`,
    );
    if (event.block) {
      lines.push("SUMMARY:Airbnb (Not available)", `UID:${uid(index, event.n, "b")}@airbnb.com`);
    } else {
      lines.push(
        "SUMMARY:Reserved",
        `UID:${uid(index, event.n, "r")}@airbnb.com`,
        // Folded at 75 octets, as Airbnb's exporter does.
        ...fold(
          `DESCRIPTION:Reservation URL: https://www.airbnb.com/hosting/reservations/details/${event.code}\\nPhone Number (Last 4 Digits): ${event.phone}`,
        ),
      );
    }
    lines.push("END:VEVENT");
  }
  // Airbnb's rolling "Not available" window beyond the booking horizon.
  lines.push(
    "BEGIN:VEVENT",
    `DTSTAMP:${stamp}`,
    `DTSTART;VALUE=DATE:${ymd(addDays(today, 365))}`,
    `DTEND;VALUE=DATE:${ymd(addDays(today, 730))}`,
    "SUMMARY:Airbnb (Not available)",
    `UID:${uid(index, 9999, "w")}@airbnb.com`,
    "END:VEVENT",
    "END:VCALENDAR",
  );
  return `${lines.join("\r\n")}\r\n`;
}

function fold(line) {
  const out = [line.slice(0, 75)];
  for (let i = 75; i < line.length; i += 74) out.push(` ${line.slice(i, i + 74)}`);
  return out;
}

function uid(index, n, tag) {
  return `${(index * 2654435761 >>> 0).toString(16).padStart(8, "0")}-${tag}${n.toString(16).padStart(4, "0")}`;
}

function reservationCode(random) {
  const letters = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
  let code = "HM";
  for (let i = 0; i < 8; i++) code += letters[Math.floor(random() * letters.length)];
  return code;
}

/** Local calendar date as YYYYMMDD: channels write all-day dates in the owner's local calendar. */
function ymd(date) {
  return `${date.getFullYear()}${String(date.getMonth() + 1).padStart(2, "0")}${String(date.getDate()).padStart(2, "0")}`;
}

function addDays(date, days) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}

/** mulberry32: a tiny seeded generator, so feed i is the same on every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
