// Each channel as its owner knows it ("Booking.com", not "booking"), for messages to people.
import type { CalendarSource } from "../types.js";

/** The channel's own name; `other` is a calendar calsync does not recognise. */
export const CHANNEL_NAMES: Readonly<Record<CalendarSource, string>> = {
  airbnb: "Airbnb",
  booking: "Booking.com",
  vrbo: "Vrbo",
  expedia: "Expedia",
  google: "Google Calendar",
  tripadvisor: "Tripadvisor",
  agoda: "Agoda",
  other: "another site",
};
