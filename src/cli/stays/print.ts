// How a direct stay reads in one line, and the note on calendars a check could not refresh.
import type { RefreshWarning, Reservation } from "../../resource-types.js";
import type { CliContext } from "../context.js";
import { plural } from "../output.js";

/** `booking res_… at prp_…: 2027-03-12 → 2027-03-15 (3 nights), "Ana (phone)"`. */
export function describeStay(stay: Reservation): string {
  const nights = Math.round((Date.parse(`${stay.departure}T00:00:00Z`) - Date.parse(`${stay.arrival}T00:00:00Z`)) / 86_400_000);
  const summary = stay.summary ? `, ${JSON.stringify(stay.summary)}` : "";
  return `${stay.kind} ${stay.id} at ${stay.propertyId}: ${stay.arrival} → ${stay.departure} (${plural(nights, "night", "nights")})${summary}`;
}

/** Names on stderr each channel calendar the check used as last stored (CONTRACT §14 `warnings`). */
export function warnNotRefreshed(context: CliContext, warnings: readonly RefreshWarning[] | undefined): void {
  for (const warning of warnings ?? []) {
    context.logger.warn(`calendar ${warning.calendarId} could not be refreshed, so its nights were checked as last synced: ${warning.message}`);
  }
}
