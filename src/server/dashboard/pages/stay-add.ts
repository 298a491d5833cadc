// "Add booking" and "Block nights" on the property page (CONTRACT §14): POST /properties/<id>/stays stores the stay
// through the API's resource functions, or shows the property page again with the refusal in words. Apart from
// direct-stays.ts (the section the property page draws), so the two pages do not import each other.
import { getRouterParam, type H3 } from "h3";
import { createDirectStay, type ResourceFailure } from "../../../resources/index.js";
import type { RefreshWarning } from "../../../resource-types.js";
import type { Property, Store } from "../../../store/types.js";
import { ownerAction, redirectWithFlash, type DashboardContext } from "../context.js";
import type { Flash } from "../layout.js";
import { ownedProperty } from "../owned.js";
import { channelName, nightsText, refusalText, resourceContext, type StayForm } from "./direct-stays.js";
import { notFoundPage } from "./errors.js";
import { propertyPage } from "./property.js";

/** Adds POST /properties/<id>/stays. */
export function registerStayAdd(app: H3, ctx: DashboardContext): void {
  app.post(
    "/properties/:id/stays",
    ownerAction(ctx, async (event, visit, form) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!property) return notFoundPage(visit);
      const typed = { arrival: text(form, "arrival"), departure: text(form, "departure"), summary: text(form, "summary"), note: text(form, "note") };
      const kind = form.get("kind") === "block" ? "block" : "booking";
      // Empty fields are left out, so the check says "arrival is required" and the summary gets its default.
      const body = { kind, ...Object.fromEntries(Object.entries(typed).filter(([, value]) => value !== "")) };
      const made = await createDirectStay(resourceContext(ctx), { ownerId: visit.owner.id, propertyId: property.id, body });
      const stale = await staleNote(ctx.store, property, made.ok ? made.warnings : (made.warnings ?? []));
      if (!made.ok) {
        const refusal = refusalOf(made, typed);
        return propertyPage(ctx, visit, property, undefined, { ...typed, ...refusal, refusal: `${refusal.refusal}${stale}` });
      }
      const stay = made.reservation;
      const what = `${stay.kind === "block" ? "Blocked" : "Added a booking for"} ${nightsText(stay.arrival, stay.departure)}`;
      const flash: Flash = { tone: stale ? "warn" : "ok", text: `${what}.${stale}`, at: "direct-stays" };
      return redirectWithFlash(visit, `/properties/${property.id}#direct-stays`, flash);
    }),
  );
}

const FIELD_LABELS = { arrival: "Arrival", departure: "Departure", summary: "Summary", note: "Note" } as const;

function refusalOf(f: ResourceFailure, typed: { arrival: string; departure: string }): Pick<StayForm, "status" | "refusal" | "field"> {
  if (f.code === "nights_unavailable" && f.conflicts) return { status: 409, refusal: refusalText(typed.arrival, typed.departure, f.conflicts) };
  const field = f.field && f.field in FIELD_LABELS ? (f.field as keyof typeof FIELD_LABELS) : undefined;
  const refusal = field ? `${FIELD_LABELS[field]}: ${f.message.replace(new RegExp(`^${field}(: )?`), "").trim()}` : f.message;
  return { status: f.status === 422 || f.status === 404 || f.status === 400 ? f.status : 422, refusal, ...(field ? { field } : {}) };
}

// The calendars the refresh could not bring up to date (CONTRACT §14 `calendar_not_refreshed`), by channel.
async function staleNote(store: Store, property: Property, warnings: RefreshWarning[]): Promise<string> {
  if (warnings.length === 0) return "";
  const calendars = await store.listCalendars({ propertyId: property.id });
  const names = warnings.map((w) => {
    const calendar = calendars.find((c) => c.id === w.calendarId);
    return calendar ? channelName(calendar.source) : "a calendar";
  });
  return ` Note: ${names.join(", ")} could not be refreshed just now, so ${warnings.length === 1 ? "its" : "their"} nights were checked as last synced.`;
}

function text(form: URLSearchParams, name: string): string {
  return (form.get(name) ?? "").trim();
}
