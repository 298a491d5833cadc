// How a direct stay reads in one line, and the note on calendars a check could not refresh: by the names the
// owner knows (the property's, the channel's), with the ids after them for scripts and support.
import { channelName } from "../../channel-words.js";
import type { RefreshWarning, Reservation } from "../../resource-types.js";
import type { CliContext } from "../context.js";
import { plural } from "../output.js";
import type { PropertyNames } from "./backend.js";

/** `booking at "Sea View Loft": 2027-03-12 → 2027-03-15 (3 nights), "Ana (phone)" (rsv_…)`; the property's id when its name is not known. */
export function describeStay(stay: Reservation, names: PropertyNames | undefined): string {
  const nights = Math.round((Date.parse(`${stay.departure}T00:00:00Z`) - Date.parse(`${stay.arrival}T00:00:00Z`)) / 86_400_000);
  const summary = stay.summary ? `, ${JSON.stringify(stay.summary)}` : "";
  const where = names ? JSON.stringify(names.name) : `property ${stay.propertyId}`;
  return `${stay.kind} at ${where}: ${stay.arrival} → ${stay.departure} (${plural(nights, "night", "nights")})${summary} (${stay.id})`;
}

/** One warning on stderr per channel calendar the check used as last stored (CONTRACT §14 `warnings`), by its channel's name. */
export function warnNotRefreshed(context: CliContext, warnings: readonly RefreshWarning[] | undefined, names: PropertyNames | undefined): void {
  for (const warning of warnings ?? []) {
    const source = names?.calendars.find((calendar) => calendar.id === warning.calendarId)?.source;
    const known = source !== undefined && source !== "other" && source !== "direct";
    const calendar = known ? `${channelName(source)} (${warning.calendarId})` : `Calendar ${warning.calendarId}`;
    // The server's message gives the reason and says how the nights were checked; one from elsewhere may not.
    const message = /last (stored|synced)/.test(warning.message) ? warning.message : `${warning.message}; checked as last stored`;
    context.logger.warn(`${calendar} could not be refreshed just now: ${message}`);
  }
}
