// Example values of API v1's resources for the OpenAPI document: one small world (a loft with an Airbnb
// calendar and a direct stay) whose dates lie far ahead, so a tool that sends an example body gets a 201,
// not a 422 for a stay already over. Typed by the SDK's types, and test/openapi-examples.test.ts checks
// each against its schema and sends the request examples to a real server.
import type { Availability, DirectStayCreate, DirectStayUpdate, NightsConflict, Property, RefreshWarning, Reservation, Turnover } from "../../resource-types.js";

/** The year the examples' stays fall in; test/openapi-examples.test.ts asks for it to stay a year ahead. */
export const EXAMPLE_YEAR = 2030;
const on = (monthDay: string) => `${EXAMPLE_YEAR}-${monthDay}`;

const propertyId = "prp_0VcElbgWpj5Jfp9UaQ4W";
const airbnbCalendarId = "cal_0VcElbgXoz7NhQrIp2sY";
const directCalendarId = "cal_0VcElbgYAHX0V6TKFyJm";

export const exampleProperty: Property = {
  id: propertyId,
  name: "Sea View Loft",
  timeZone: "Europe/Lisbon",
  feedUrl: "https://calsync.example.com/ical/Xq3vN8rT2mK9pL4wZ7bY1cD6.ics",
  calendars: [
    {
      id: airbnbCalendarId,
      source: "airbnb",
      url: "https://www.airbnb.com/calendar/ical/12345678.ics?s=***",
      status: "success",
      lastSyncedAt: `${EXAMPLE_YEAR}-06-20T09:15:02.114Z`,
      consecutiveFailures: 0,
      failingSince: null,
    },
    { id: directCalendarId, source: "direct", url: "", status: null, lastSyncedAt: null, consecutiveFailures: 0, failingSince: null },
  ],
  checkInTime: "15:00",
  checkOutTime: "11:00",
  bufferNights: 0,
  cleanerEmails: [],
  cleaningUrl: null,
};

/** A direct stay as the create example below stores it. */
export const exampleReservation: Reservation = {
  id: "rsv_0VcElbgY5XFTG8cgSVY1",
  propertyId,
  calendarId: directCalendarId,
  source: "direct",
  kind: "booking",
  status: "active",
  arrival: on("07-01"),
  departure: on("07-05"),
  summary: "Ms Lee, booked by phone",
  note: "Arrives on the late ferry",
  echoOf: null,
  createdAt: `${EXAMPLE_YEAR}-06-20T09:15:03.540Z`,
  updatedAt: `${EXAMPLE_YEAR}-06-20T09:15:03.540Z`,
};

export const exampleRefreshWarning: RefreshWarning = {
  code: "calendar_not_refreshed",
  calendarId: airbnbCalendarId,
  message: "the airbnb calendar could not be refreshed (timeout); checked as last stored",
};

export const exampleConflict: NightsConflict = { reservationId: "rsv_0VcElbgYEyhnYRN2f1qM", source: "airbnb", arrival: on("07-03"), departure: on("07-08") };

export const exampleAvailability: Availability = {
  propertyId,
  timeZone: "Europe/Lisbon",
  from: on("06-29"),
  to: on("07-02"),
  nights: [
    { date: on("06-29"), available: true, reservationIds: [] },
    { date: on("06-30"), available: true, reservationIds: [] },
    { date: on("07-01"), available: false, reservationIds: [exampleReservation.id] },
  ],
};

/** A POST body: real dates, arrival before departure, years ahead. */
export const exampleStayCreate: DirectStayCreate = {
  kind: "booking",
  arrival: on("07-01"),
  departure: on("07-05"),
  summary: "Ms Lee, booked by phone",
  note: "Arrives on the late ferry",
};

/** A block of the owner's own, checked without a refresh. */
export const exampleBlock: DirectStayCreate = { kind: "block", arrival: on("12-22"), departure: on("12-27"), summary: "Owner's week", refresh: false };

/** A PATCH body for the stay above: one night more. */
export const exampleStayUpdate: DirectStayUpdate = { departure: on("07-06"), note: "Late check-out agreed" };

/** Dates and other query values that a real server reads as given. */
export const exampleQuery = { from: on("07-01"), to: on("08-01"), status: "all", limit: 50 } as const;

/** A turnover of the loft: the direct stay leaves, nobody is booked after it yet. */
export const exampleTurnover: Turnover = {
  date: on("07-14"),
  propertyId,
  departingReservationId: "rsv_0VcElbgZ3kTq8WmPzR1a",
  checkOutTime: "11:00",
  nextArrival: null,
  sameDay: false,
  tight: false,
};
