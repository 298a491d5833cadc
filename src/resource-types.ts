// The wire types of API v1's resources (CONTRACT §14) and the public availability feed (§15).
// Server, SDK, CLI and dashboard use these, so the shapes are written once.
// Only this file imports the other: ReservationSource, which both name, is written in ./types.js.
import type { ReservationSource } from "./types.js";

export type { ReservationSource };

/** One calendar of a property, as `GET /api/v1/properties/{id}` lists it (`url` masked). */
export interface PropertyCalendar {
  id: string;
  source: ReservationSource;
  url: string;
  /** The last sync's outcome; `null` before the first. */
  status: "success" | "failed" | null;
  lastSyncedAt: string | null;
  consecutiveFailures: number;
  failingSince: string | null;
}

/** A property of the token's owner. */
export interface Property {
  id: string;
  name: string;
  /** IANA zone the nights are read in; `null` when unset. */
  timeZone: string | null;
  /**
   * The outbound feed's URL (its token is a capability: treat it as a secret); `null` until the owner asks for
   * one (`calsync property feed`, the dashboard's "Create feed URL") and after the feed is switched off.
   */
  feedUrl: string | null;
  calendars: PropertyCalendar[];
  /** Check-in and check-out times, `HH:MM` (24 h) in the property's zone (CONTRACT §18). */
  checkInTime: string;
  checkOutTime: string;
  /** Nights kept free before every booking's arrival and after its departure (0–7). */
  bufferNights: number;
  /** The cleaners' addresses (at most 5), mailed about turnovers. */
  cleanerEmails: string[];
  /** The property's cleaning feed (a capability: share it with the cleaners only); null until made. */
  cleaningUrl: string | null;
}

/** A turnover (CONTRACT §18): the departure date of an active booking and who arrives next. */
export interface Turnover {
  /** The departure date, `YYYY-MM-DD`, in the property's zone. */
  date: string;
  propertyId: string;
  departingReservationId: string;
  /** `HH:MM` in the property's zone. */
  checkOutTime: string;
  /** The next active booking's arrival on or after `date`, else null. */
  nextArrival: { date: string; reservationId: string; checkInTime: string } | null;
  /** The next guests arrive on `date`. */
  sameDay: boolean;
  /** The next arrival falls within the departing booking's buffer nights. */
  tight: boolean;
}

/** A `PATCH /api/v1/properties/{id}` body: any of these, at least one (CONTRACT §18). */
export interface PropertyUpdate {
  name?: string;
  timeZone?: string | null;
  checkInTime?: string;
  checkOutTime?: string;
  bufferNights?: number;
  cleanerEmails?: string[];
}

/** A reservation as the API shows it; `arrival`/`departure` are `YYYY-MM-DD` (departure exclusive). */
export interface Reservation {
  id: string;
  propertyId: string;
  calendarId: string;
  source: ReservationSource;
  kind: "booking" | "block";
  status: "active" | "cancelled";
  arrival: string;
  departure: string;
  summary: string;
  /** The owner's note on a direct stay; `null` on channel reservations and when none was given. */
  note: string | null;
  /** The reservation this one is a channel's echo of, else `null`. */
  echoOf: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One page of a list; `nextCursor` is opaque and `null` on the last page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** One night of an availability answer. */
export interface AvailabilityNight {
  date: string;
  available: boolean;
  /** The active reservations holding the night (empty when available). */
  reservationIds: string[];
}

/** `GET /api/v1/properties/{id}/availability`: nights in [from, to). */
export interface Availability {
  propertyId: string;
  timeZone: string | null;
  from: string;
  to: string;
  nights: AvailabilityNight[];
}

/** `GET /availability/{feedToken}.json` (§15): dates and `available` only, nothing private. */
export interface PublicAvailability {
  from: string;
  to: string;
  nights: { date: string; available: boolean }[];
}

/** Body of `POST /api/v1/properties/{id}/reservations`. */
export interface DirectStayCreate {
  kind: "booking" | "block";
  arrival: string;
  departure: string;
  summary?: string;
  /** `null` is no note, as leaving it out is. */
  note?: string | null;
  /** Sync the property's channel calendars before checking. @default true */
  refresh?: boolean;
}

/** Body of `PATCH /api/v1/reservations/{id}`: any of these. */
export interface DirectStayUpdate {
  arrival?: string;
  departure?: string;
  summary?: string;
  /** `null` removes the note. */
  note?: string | null;
  /** When the nights change, sync the property's channel calendars before checking. @default true */
  refresh?: boolean;
}

/** A stay that takes a night asked for (`409 nights_unavailable`). */
export interface NightsConflict {
  reservationId: string;
  source: ReservationSource;
  arrival: string;
  departure: string;
}

/** A channel calendar that could not be refreshed before a check; it was checked as last stored. */
export interface RefreshWarning {
  code: "calendar_not_refreshed";
  calendarId: string;
  message: string;
}

/** Token scopes: `sync` the sync route, `read` the GET routes, `write` POST, PATCH and DELETE. */
export type TokenScope = "sync" | "read" | "write";

/** Every scope, in documentation order (a token made before scopes existed has all of them). */
export const TOKEN_SCOPES: readonly TokenScope[] = ["sync", "read", "write"];

/** 201 of `POST /api/v1/properties/{id}/reservations` (and 200 of PATCH): the stay, and the calendars not refreshed. */
export type DirectStayResult = Reservation & { warnings?: RefreshWarning[] };
