// Direct stays on the property page (CONTRACT §14): "Add booking" and "Block nights" in one form (the two
// buttons send the kind), the property's upcoming direct stays with "Cancel stay", and the refusal in words.
// Writes go through the API's resource functions with the runner's refresh of the property's calendars before a
// check; the form's POST is stay-add.ts, which draws the property page again on a refusal (this file is part of it),
// and Cancel stay is stay-cancel.ts.
import { addDays, todayAt } from "../../../engine/nights.js";
import type { ResourceContext } from "../../../resources/index.js";
import { MAX_NOTE, MAX_SUMMARY } from "../../../resources/validate.js";
import type { NightsConflict, ReservationSource, Reservation } from "../../../resource-types.js";
import type { Property, Store } from "../../../store/types.js";
import type { DashboardContext, Visit } from "../context.js";
import { plural, shortDay } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { csrfField, flashAt, flashMessage } from "../layout.js";

/** What the stay form sent, shown again with why it was refused. */
export interface StayForm {
  arrival: string;
  departure: string;
  summary: string;
  note: string;
  status: 409 | 422 | 404 | 400;
  refusal: string;
  /** The form field at fault (422). */
  field?: "arrival" | "departure" | "summary" | "note";
}

/** The section of the property page: the form (with a refusal), and the upcoming direct stays. */
export async function directStaysSection(ctx: DashboardContext, visit: Visit, property: Property, form?: StayForm): Promise<SafeHtml> {
  const stays = await upcomingDirectStays(ctx.store, property, ctx.now());
  const invalid = (name: StayForm["field"]) => (form?.field === name ? html` aria-invalid="true" aria-describedby="stay-refusal"` : html``);
  const field = (name: "arrival" | "departure", label: string) =>
    html`<label class="field"><span>${label}</span><input type="date" name="${name}" value="${form?.[name] ?? ""}" required${invalid(name)}></label>`;
  return html`<section class="card" id="direct-stays">
  <h2>Direct stays</h2>
  ${flashAt(visit, "direct-stays")}
  <p class="muted">Guests who booked by phone or on your own site, and nights you keep for yourself. calsync first syncs this property's channel calendars, so the nights are checked against what the channels say now; the outbound feed then closes them on every channel.</p>
  ${form ? html`<div id="stay-refusal">${flashMessage({ tone: "error", text: form.refusal })}</div>` : html``}
  <form method="post" action="$${url(`/properties/${property.id}/stays#direct-stays`)}" class="inline-form stay-form" data-busy="Checking the channels…">
    ${csrfField(visit.csrf)}
    ${field("arrival", "Arrival")}
    ${field("departure", "Departure")}
    <label class="field grow"><span>Summary</span><input type="text" name="summary" value="${form?.summary ?? ""}" maxlength="${MAX_SUMMARY}" placeholder="Guest name or reason"${invalid("summary")}></label>
    <label class="field grow"><span>Note</span><input type="text" name="note" value="${form?.note ?? ""}" maxlength="${MAX_NOTE}"${invalid("note")}></label>
    <div class="actions"><button type="submit" name="kind" value="booking" class="button primary">Add booking</button>
    <button type="submit" name="kind" value="block" class="button">Block nights</button></div>
  </form>
  ${stays.length === 0 ? html`<p class="empty-row muted">No upcoming direct stays.</p>` : stayList(stays)}
</section>`;
}

// "Cancel stay" opens a page that asks first (stay-cancel.ts): a GET form, so it is a button and needs no script.
function stayList(stays: Reservation[]): SafeHtml {
  const items = stays.map(
    (stay) => html`<li class="stay-item">
    <div><strong>${nightsText(stay.arrival, stay.departure)}</strong> <span class="pill ${stay.kind === "block" ? "muted-pill" : "ok"}">${stay.kind === "block" ? "blocked" : "booking"}</span>
      <div>${stay.summary}</div>${stay.note ? html`<div class="muted">${stay.note}</div>` : html``}</div>
    <form method="get" action="$${url(`/stays/${stay.id}/cancel`)}">
      <button type="submit" class="button danger small" aria-label="${`Cancel stay ${nightsText(stay.arrival, stay.departure)}`}">Cancel stay</button></form>
  </li>`,
  );
  return html`<ul class="stay-list" aria-label="Upcoming direct stays">${items}</ul>`;
}

/**
 * `12 Mar → 15 Mar 2027 (3 nights)`: arrival, departure morning, and the nights between, with the year (a stay
 * can be booked a year ahead; two years when it spans New Year: `30 Dec 2026 → 2 Jan 2027`).
 */
export function nightsText(arrival: string, departure: string): string {
  const nights = Math.round((Date.parse(departure) - Date.parse(arrival)) / 86_400_000);
  const year = (date: string) => date.slice(0, 4);
  const from = year(arrival) === year(departure) ? shortDay(arrival) : `${shortDay(arrival)} ${year(arrival)}`;
  return `${from} → ${shortDay(departure)} ${year(departure)} (${plural(nights, "night", "nights")})`;
}

/** The refusal in words: which nights, and which channel holds them. */
export function refusalText(arrival: string, departure: string, conflicts: NightsConflict[]): string {
  const parts = conflicts.map((c) => {
    const first = c.arrival > arrival ? c.arrival : arrival;
    const after = c.departure < departure ? c.departure : departure;
    const taken = nightRange(first, addDays(after, -1));
    const whose = c.source === "direct" ? "another direct stay" : channelName(c.source);
    return `${taken} ${first === addDays(after, -1) ? "is" : "are"} taken by ${whose} (${shortDay(c.arrival)} → ${shortDay(c.departure)})`;
  });
  return `Not saved: ${parts.join("; ")}. Choose other nights.`;
}

// "12–14 Mar", "30 Mar – 2 Apr" or "12 Mar" for the nights from `first` to `last` inclusive.
function nightRange(first: string, last: string): string {
  if (first === last) return shortDay(first);
  const [a, b] = [shortDay(first), shortDay(last)];
  const sameMonth = first.slice(0, 7) === last.slice(0, 7);
  return sameMonth ? `${a.split(" ")[0]}–${b}` : `${a} – ${b}`;
}

const CHANNEL_NAMES: Partial<Record<ReservationSource, string>> = { airbnb: "Airbnb", booking: "Booking.com", vrbo: "Vrbo", tripadvisor: "Tripadvisor", other: "another channel" };

/** A channel as the owner knows it: "Airbnb", "Booking.com". */
export function channelName(source: ReservationSource): string {
  return CHANNEL_NAMES[source] ?? source.charAt(0).toUpperCase() + source.slice(1);
}

/** The API's resource functions with the runner's refresh of the property's calendars. */
export function resourceContext(ctx: DashboardContext): ResourceContext {
  return { store: ctx.store, refresh: ctx.runner.refresh, now: ctx.now };
}

// Active direct stays with a night from today on, every page of the property's list walked.
async function upcomingDirectStays(store: Store, property: Property, now: Date): Promise<Reservation[]> {
  const from = todayAt(now, property.timeZone);
  const stays: Reservation[] = [];
  let after: { arrival: string; id: string } | undefined;
  for (;;) {
    const page = await store.reservationsPage({ propertyId: property.id, from, status: "active", limit: 500, ...(after ? { after } : {}) });
    stays.push(...page.filter((r) => r.source === "direct"));
    if (page.length < 500) return stays;
    after = { arrival: page.at(-1)!.arrival, id: page.at(-1)!.id };
  }
}
