// Channel vocabularies (CONTRACT §8, issue 18): every block, booking and tentative word, in the
// languages of the channels' sites, read from a feed shaped like that channel's export.
import { describe, expect, it } from "vitest";
import type { FeedEvent } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import type { CalendarSource } from "../src/types.js";

/** One event in a feed shaped like an Abritel / fewo-direkt / Vrbo export (all-day, UUID UIDs). */
function vrboFeed(summary: string): string {
  return [
    "BEGIN:VCALENDAR",
    "PRODID:-//HomeAway.com\\, Inc.//EN",
    "VERSION:2.0",
    "CALSCALE:GREGORIAN",
    "BEGIN:VEVENT",
    "UID:3f7c2a90-5d1e-4b8a-9c6f-0e2d4b6a8c10",
    "DTSTAMP:20310101T101010Z",
    "DTSTART;VALUE=DATE:20310501",
    "DTEND;VALUE=DATE:20310507",
    `SUMMARY:${summary}`,
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");
}

/** One event in a feed shaped like a Google Calendar export (timed, X-WR-CALNAME, TRANSP:OPAQUE). */
function googleFeed(summary: string): string {
  return [
    "BEGIN:VCALENDAR",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "VERSION:2.0",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "X-WR-CALNAME:Ferienwohnung",
    "X-WR-TIMEZONE:Europe/Berlin",
    "BEGIN:VEVENT",
    "DTSTART:20310501T140000Z",
    "DTEND:20310507T090000Z",
    "DTSTAMP:20310101T101010Z",
    "UID:0abc123def456ghi789@google.com",
    "STATUS:CONFIRMED",
    `SUMMARY:${summary}`,
    "TRANSP:OPAQUE",
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");
}

function only(text: string, source: CalendarSource): FeedEvent {
  const result = parseFeed(text, { source, now: new Date(2031, 0, 1) });
  if (!result.ok) throw new Error(result.error.message);
  expect(result.events).toHaveLength(1);
  return result.events[0]!;
}

const BLOCK_WORDS = [
  ...["Not available", "Unavailable", "Blocked", "Closed", "Owner block"],
  ...["Indisponible", "INDISPONIBLE", "Non disponible", "Bloqué", "Bloquée", "Bloque"],
  ...["Nicht verfügbar", "Nicht verfugbar", "Gesperrt", "Blockiert", "Geschlossen", "Nicht buchbar"],
  ...["No disponible", "Bloqueado", "Bloqueada", "Cerrado"],
  ...["Non disponibile", "Bloccato", "Bloccata", "Chiuso"],
  ...["Niet beschikbaar", "Geblokkeerd", "Gesloten"],
  ...["Indisponível", "Não disponível", "Fechado"],
  "Période indisponible",
];

const BOOKING_WORDS = [
  ...["Reserved", "Booked"],
  ...["Réservée", "Réservé", "RÉSERVÉE", "Reservee"],
  ...["Reserviert", "Gebucht", "Belegt"],
  ...["Reservado", "Reservada", "Ocupado"],
  ...["Prenotato", "Prenotata", "Riservato", "Riservata", "Occupato"],
  ...["Gereserveerd", "Geboekt", "Bezet"],
];

const TENTATIVE_WORDS = [
  ...["Tentative", "Provisional"],
  "Provisoire",
  ...["Vorläufig", "Vorlaufig", "Provisorisch"],
  ...["Provisório", "Provisoria", "Provisorio"],
  ...["Provvisorio", "Provvisoria"],
  "Voorlopig",
];

describe("block words, on the Vrbo family and in the generic rules", () => {
  it.each(BLOCK_WORDS)("%s is an owner block in a Vrbo export", (word) => {
    expect(only(vrboFeed(word), "vrbo").kind).toBe("block");
  });

  it.each(BLOCK_WORDS)("%s is an owner block in a feed of no known channel", (word) => {
    expect(only(vrboFeed(word), "other").kind).toBe("block");
  });
});

describe("booking words", () => {
  // A Google calendar is a block unless it names a booking, so only the word can make these bookings.
  it.each(BOOKING_WORDS)("%s is a booking even in a Google calendar", (word) => {
    expect(only(googleFeed(word), "google")).toMatchObject({ kind: "booking", details: {} });
  });

  it.each(BOOKING_WORDS)("%s - Name is a booking in a Vrbo export, with the guest's name", (word) => {
    expect(only(vrboFeed(`${word} - Melanie`), "vrbo")).toMatchObject({ kind: "booking", details: { guestName: "Melanie" } });
  });
});

describe("tentative words: bookings held but not confirmed", () => {
  it.each(TENTATIVE_WORDS)("%s - Sylvie is a tentative booking in a Vrbo export", (word) => {
    const event = only(vrboFeed(`${word} - Sylvie`), "vrbo");
    expect(event).toMatchObject({ kind: "booking", details: { tentative: true, guestName: "Sylvie" } });
  });

  it.each(TENTATIVE_WORDS)("%s is a tentative booking even in a Google calendar", (word) => {
    expect(only(googleFeed(word), "google")).toMatchObject({ kind: "booking", details: { tentative: true } });
  });
});

describe("matching", () => {
  it.each([
    ["Enclosed garden day", "other", "booking"],
    ["Unblocked", "other", "booking"],
    ["Bezetting planning", "google", "block"],
    ["Ferme bloquée pour travaux", "other", "block"],
    ["Famille - réservé", "google", "block"],
    ["Tentatively free", "google", "block"],
  ] as const)("%j in a %s feed is a %s (whole words only; booking words only at the start)", (summary, source, kind) => {
    expect(only(vrboFeed(summary), source).kind).toBe(kind);
  });

  it("reads accents however they are encoded, and keeps the guest's name as written", () => {
    const decomposed = "Re\u0301serve\u0301e - Me\u0301lanie Dupont";
    expect(only(vrboFeed(decomposed), "vrbo")).toMatchObject({ kind: "booking", details: { guestName: "Me\u0301lanie Dupont" } });
    expect(only(vrboFeed("Réservée – Mélanie"), "vrbo").details.guestName).toBe("Mélanie");
    expect(only(vrboFeed("Reserviert: Hans Müller"), "vrbo").details.guestName).toBe("Hans Müller");
  });

  it("takes no guest name from a block wording, and marks no confirmed booking tentative", () => {
    expect(only(vrboFeed("Réservée - Indisponible"), "vrbo").details).toEqual({});
    expect(only(vrboFeed("Reserved - Jane Doe"), "vrbo").details).toEqual({ guestName: "Jane Doe" });
  });
});
