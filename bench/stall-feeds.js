// The two feeds that used to stall `calsync serve`: one with 20,000 events (about 7 MB) and one
// recurring series that expands to 43,800 occurrences, just under the parser's 50,000 budget.
// Dates are relative to today, so the feeds read the same on every run.

/** Events in the big feed. */
export const BIG_FEED_EVENTS = 20_000;

/** Occurrences of the dense series over the expansion window (1 year back, 2 years ahead: 1,095 days × 40). */
export const DENSE_SERIES_OCCURRENCES = 43_800;

/** A VCALENDAR of `events` Airbnb-shaped stays and blocks, each with a UID and a description, about 350 bytes each. */
export function bigFeed(events = BIG_FEED_EVENTS, today = new Date()) {
  const stamp = `${ymd(today)}T060000Z`;
  const lines = ["BEGIN:VCALENDAR", "PRODID:-//Airbnb Inc//Hosting Calendar 0.8.8//EN", "CALSCALE:GREGORIAN", "VERSION:2.0"];
  for (let i = 0; i < events; i++) {
    // Spread over the three years a feed covers; the stays of one calendar may overlap here, which no rule forbids.
    const from = -365 + (i % 1095);
    const block = i % 5 === 0;
    lines.push("BEGIN:VEVENT", `DTSTAMP:${stamp}`, `DTSTART;VALUE=DATE:${ymd(addDays(today, from))}`, `DTEND;VALUE=DATE:${ymd(addDays(today, from + 2 + (i % 5)))}`);
    if (block) lines.push("SUMMARY:Airbnb (Not available)", `UID:big-${i}-b@airbnb.com`);
    else {
      lines.push(
        "SUMMARY:Reserved",
        `UID:big-${i}-r@airbnb.com`,
        `DESCRIPTION:Reservation URL: https://www.airbnb.com/hosting/reservations/details/HM${String(i).padStart(8, "0")}\\n`,
        ` Phone Number (Last 4 Digits): ${1000 + (i % 9000)}`,
      );
    }
    lines.push("END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  return `${lines.join("\r\n")}\r\n`;
}

/**
 * One owner's calendar as a recurring series: every day at 20 hours × 2 minutes, from a year back,
 * a day-long event (a Google Calendar "busy" pattern gone wild). Daily with BYHOUR/BYMINUTE, so the
 * parser's hourly-rule refusal does not apply and its cost bound lets it through.
 */
export function denseSeriesFeed(today = new Date()) {
  const start = addDays(today, -365);
  const hours = Array.from({ length: 20 }, (_, h) => h + 2).join(",");
  return [
    "BEGIN:VCALENDAR",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "VERSION:2.0",
    "CALSCALE:GREGORIAN",
    "BEGIN:VEVENT",
    `DTSTART:${ymd(start)}T000000Z`,
    // A day long, so each occurrence takes a night: a one-minute event takes none (CONTRACT §4's same-day rule)
    // and would leave nothing to write.
    `DTEND:${ymd(addDays(start, 1))}T000000Z`,
    `RRULE:FREQ=DAILY;BYHOUR=${hours};BYMINUTE=0,30`,
    "DTSTAMP:20240101T000000Z",
    "UID:dense-series@google.com",
    "SUMMARY:Busy",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

function ymd(date) {
  return `${date.getFullYear()}${String(date.getMonth() + 1).padStart(2, "0")}${String(date.getDate()).padStart(2, "0")}`;
}

function addDays(date, days) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}
