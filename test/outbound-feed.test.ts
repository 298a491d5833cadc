import ical from "node-ical";
import { describe, expect, it } from "vitest";
import { buildOutboundFeed, outboundFeedEtag, type OutboundReservation } from "../src/engine/outbound-feed.js";
import { addDays } from "../src/engine/nights.js";

// Fixture dates relative to today so the suite never goes stale.
const today = new Date().toISOString().slice(0, 10);
const day = (n: number): string => addDays(today, n);
const now = new Date(`${today}T08:30:00Z`);

const reservations: OutboundReservation[] = [
  { id: "rsv_a1", source: "airbnb", arrival: day(3), departure: day(7), kind: "booking", status: "active" },
  { id: "rsv_b1", source: "booking", arrival: day(10), departure: day(12), kind: "booking", status: "active" },
  { id: "rsv_b2", source: "booking", arrival: day(20), departure: day(25), kind: "block", status: "active" },
  // A timed stay, by the nights it was stored with (CONTRACT §8; see nights.test.ts).
  { id: "rsv_v1", source: "vrbo", arrival: day(30), departure: day(33), kind: "booking", status: "active" },
  { id: "rsv_gone", source: "airbnb", arrival: day(40), departure: day(44), kind: "booking", status: "cancelled" },
];

function build(extra: Partial<Parameters<typeof buildOutboundFeed>[0]> = {}): string {
  return buildOutboundFeed({ propertyId: "prp_loft", propertyName: "Sea View Loft", reservations, now, ...extra });
}

/** All-day dates as node-ical returns them: local midnight, so read with local getters. */
function localDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** The feed as channels' importers see it: UID → nights, via node-ical. */
function nightsIn(body: string): Record<string, { start: string; end: string; summary: string; allDay: boolean }> {
  const out: Record<string, { start: string; end: string; summary: string; allDay: boolean }> = {};
  for (const component of Object.values(ical.sync.parseICS(body))) {
    if (component?.type !== "VEVENT") continue;
    out[component.uid] = {
      start: localDate(component.start),
      end: localDate(component.end!),
      summary: String(component.summary),
      allDay: component.datetype === "date",
    };
  }
  return out;
}

describe("buildOutboundFeed", () => {
  it("round-trips through node-ical as the same nights, all-day, one event per active reservation", () => {
    expect(nightsIn(build())).toEqual({
      "rsv_a1@calsync": { start: day(3), end: day(7), summary: "Not available", allDay: true },
      "rsv_b1@calsync": { start: day(10), end: day(12), summary: "Not available", allDay: true },
      "rsv_b2@calsync": { start: day(20), end: day(25), summary: "Not available", allDay: true },
      "rsv_v1@calsync": { start: day(30), end: day(33), summary: "Not available", allDay: true },
    });
  });

  it("keeps the same nights whatever the machine's time zone", () => {
    const saved = process.env.TZ;
    try {
      for (const tz of ["Pacific/Kiritimati", "America/Adak", "UTC"]) {
        process.env.TZ = tz;
        expect(nightsIn(build())["rsv_a1@calsync"]).toMatchObject({ start: day(3), end: day(7) });
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it("writes DATE values, a DTSTAMP and the calsync PRODID", () => {
    const body = build();
    const compact = (d: string) => d.replaceAll("-", "");
    expect(body).toContain(`DTSTART;VALUE=DATE:${compact(day(3))}\r\n`);
    expect(body).toContain(`DTEND;VALUE=DATE:${compact(day(7))}\r\n`);
    expect(body).toContain(`DTSTAMP:${compact(today)}T083000Z\r\n`);
    expect(body).toContain("PRODID:-//calsync//calsync 0.1//EN\r\n");
    expect(body).toContain("X-WR-CALNAME:Sea View Loft\r\n");
    expect(body.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
  });

  it("keeps UIDs and the whole body identical between two builds, whatever the input order", () => {
    const first = build();
    const second = build({ reservations: [...reservations].reverse() });
    expect(second).toBe(first);
    expect(Object.keys(nightsIn(second)).sort()).toEqual(Object.keys(nightsIn(first)).sort());
  });

  it("leaves out every reservation of an excluded source", () => {
    const uids = Object.keys(nightsIn(build({ exclude: ["airbnb"] }))).sort();
    expect(uids).toEqual(["rsv_b1@calsync", "rsv_b2@calsync", "rsv_v1@calsync"]);

    const onlyVrbo = Object.keys(nightsIn(build({ exclude: ["airbnb", "booking"] })));
    expect(onlyVrbo).toEqual(["rsv_v1@calsync"]);
  });

  it("is a valid empty calendar when nothing is left", () => {
    const body = build({ exclude: ["airbnb", "booking", "vrbo"] });
    expect(body).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/);
    expect(nightsIn(body)).toEqual({});
  });

  it("uses CRLF line endings, ends with CRLF, and folds lines to at most 75 octets", () => {
    const body = build({
      propertyName: "Ferienwohnung Möwe – Blick aufs Meer, Dachterrasse, Strandnähe, Zimmer 3 🌊🌊🌊",
      reservations: [{ ...reservations[0]!, id: `rsv_${"x".repeat(90)}` }],
    });
    expect(body).not.toMatch(/[^\r]\n/);
    expect(body.endsWith("END:VCALENDAR\r\n")).toBe(true);
    const lines = body.split("\r\n");
    expect(lines.some((line) => line.startsWith(" "))).toBe(true);
    for (const line of lines) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(75);
    // Folding is undone by parsers: the long UID and the name come back whole.
    expect(Object.keys(nightsIn(body))).toEqual([`rsv_${"x".repeat(90)}@calsync`]);
    const calendar = Object.values(ical.sync.parseICS(body)).find((c) => c?.type === "VCALENDAR");
    expect(calendar?.["WR-CALNAME"]).toBe("Ferienwohnung Möwe – Blick aufs Meer, Dachterrasse, Strandnähe, Zimmer 3 🌊🌊🌊");
  });

  it("never carries guest details or the source channel, even when handed a full store row", () => {
    const row = {
      ...reservations[0]!,
      summary: "Reserved - Jane Doe",
      uid: "HMXYZ123@airbnb.com",
      details: { guestName: "Jane Doe", phoneLast4: "4242", reservationCode: "HMXYZ123", description: "https://www.airbnb.com/hosting/reservations/details/HMXYZ123" },
    };
    const body = build({ reservations: [row] });
    for (const secret of ["Jane", "4242", "HMXYZ123", "airbnb", "Reserved"]) expect(body).not.toContain(secret);
    expect(body).toContain("SUMMARY:Not available\r\n");
  });

  it("cannot be broken by a property name with newlines or separators", () => {
    const body = build({ propertyName: "Loft\r\nBEGIN:VEVENT\r\nUID:evil; x, y" });
    expect(Object.keys(nightsIn(body))).toHaveLength(4);
    expect(body).not.toContain("\r\nBEGIN:VEVENT\r\nUID:evil");
  });
});

describe("outboundFeedEtag", () => {
  it("is a quoted strong tag, equal for equal bodies and different when a night changes", () => {
    const etag = outboundFeedEtag(build());
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(outboundFeedEtag(build())).toBe(etag);

    const moved = reservations.map((r) => (r.id === "rsv_b1" ? { ...r, departure: day(13) } : r));
    expect(outboundFeedEtag(build({ reservations: moved }))).not.toBe(etag);
  });
});
