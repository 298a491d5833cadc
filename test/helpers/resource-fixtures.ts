// Contract-shaped (CONTRACT §14) properties, reservations and error bodies for the SDK and CLI tests,
// typed with the SDK's own types: test/sdk-openapi-shapes.test.ts checks the same values against the
// OpenAPI document, so the types, these bodies and the document cannot drift apart unnoticed.
import type { NightsConflict, Property, Reservation } from "../../src/resource-types.js";
import { day } from "./ics.js";

/** The token every stub request must carry. */
export const STUB_KEY = "cs_STUBresourcesSTUBresourcesSTU";
/** A token that may read but not write (403 `insufficient_scope` on POST, PATCH, DELETE). */
export const READ_ONLY_KEY = "cs_READonlyREADonlyREADonlyREADo";
/** A token of the stub with the write scope only: its GET requests answer 403. */
export const WRITE_ONLY_KEY = "cs_WRITEonlyWRITEonlyWRITEonlyWR";

const calendar = (id: string, source: "airbnb" | "vrbo" | "booking") => ({
  id,
  source,
  url: `https://www.${source}.example/calendar/ical/***.ics`,
  status: "success" as const,
  lastSyncedAt: "2026-11-20T08:00:00.000Z",
  consecutiveFailures: 0,
  failingSince: null,
});

const SETTINGS = { checkInTime: "15:00", checkOutTime: "11:00", bufferNights: 0, cleanerEmails: [] as string[], cleaningUrl: null };

/** Three properties of one owner, by name: Harbour Cottage, Mountain Hut, Sea View Loft. */
export function sampleProperties(): Property[] {
  return [
    { id: "prp_harbour", name: "Harbour Cottage", timeZone: null, feedUrl: "http://127.0.0.1/ical/tok_h.ics", calendars: [calendar("cal_hb", "booking")], ...SETTINGS },
    { id: "prp_hut", name: "Mountain Hut", timeZone: "Europe/Zurich", feedUrl: "http://127.0.0.1/ical/tok_m.ics", calendars: [], ...SETTINGS },
    {
      id: "prp_sea",
      name: "Sea View Loft",
      timeZone: "Europe/Lisbon",
      feedUrl: "http://127.0.0.1/ical/tok_s.ics",
      calendars: [calendar("cal_air", "airbnb"), calendar("cal_vrbo", "vrbo")],
      ...SETTINGS,
    },
  ] satisfies Property[];
}

/** A channel reservation of Sea View Loft, `offset` days from today, for `nights` nights. */
export function channelStay(id: string, source: "airbnb" | "vrbo", offset: number, nights: number): Reservation {
  return {
    id,
    propertyId: "prp_sea",
    calendarId: source === "airbnb" ? "cal_air" : "cal_vrbo",
    source,
    kind: "booking",
    status: "active",
    arrival: day(offset),
    departure: day(offset + nights),
    summary: "Reserved",
    note: null,
    echoOf: null,
    createdAt: "2026-11-20T08:00:00.000Z",
    updatedAt: "2026-11-20T08:00:00.000Z",
  } satisfies Reservation;
}

/** Seven active channel stays of Sea View Loft (ids res_01…res_07, by arrival) and one cancelled one. */
export function sampleReservations(): Reservation[] {
  const stays = [3, 8, 14, 20, 27, 33, 40].map((offset, i) => channelStay(`res_0${i + 1}`, i % 2 ? "vrbo" : "airbnb", offset, 3));
  return [...stays, { ...channelStay("res_gone", "airbnb", 50, 2), status: "cancelled" }];
}

/** The 409 body of `nights_unavailable`: `conflicts` beside `error`. */
export function nightsUnavailableBody(conflicts: NightsConflict[]) {
  const taken = conflicts.map((c) => `${c.arrival} → ${c.departure} (${c.source})`).join(", ");
  return { ok: false as const, error: { code: "nights_unavailable" as const, message: `nights taken: ${taken}` }, conflicts };
}

/** Any other error body of CONTRACT §2/§14. */
export function errorBody(code: string, message: string, field?: string) {
  return { ok: false as const, error: { code, message, ...(field ? { field } : {}) } };
}
