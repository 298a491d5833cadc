// The property page's forms: add a calendar in two steps (the CLI's checks and the preview
// `calendar test` shows, then "Save calendar", checked again), remove one, and create or rotate the
// outbound feed URL.
import { getRouterParam, type H3 } from "h3";
import { previewFeed } from "../../../engine/feed-preview.js";
import { normalizeFeedUrl } from "../../../engine/feed-url.js";
import { CALENDAR_SOURCES, type CalendarSource } from "../../../types.js";
import type { ReservationSource } from "../../../resource-types.js";
import { addCalendar, checkNewCalendar } from "../../calendar-setup.js";
import { ownerAction, redirectWithFlash, type DashboardContext } from "../context.js";
import type { Flash } from "../layout.js";
import { ownedCalendar, ownedProperty } from "../owned.js";
import { notFoundPage } from "./errors.js";
import { propertyPage } from "./property.js";

/** Adds POST /properties/<id>/calendars, /calendars/<id>/remove and /properties/<id>/feed. */
export function registerCalendarForms(app: H3, ctx: DashboardContext): void {
  // Without `confirm=1`: check and preview, store nothing. With it: check again (another tab may
  // have added the feed meanwhile) and save, without fetching the feed a second time.
  app.post(
    "/properties/:id/calendars",
    ownerAction(ctx, async (event, visit, form) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!property) return notFoundPage(visit);
      const typed = { url: (form.get("url") ?? "").trim(), source: form.get("source") ?? "" };
      const refuse = (text: string) => propertyPage(ctx, visit, property, { ...typed, error: { tone: "error", text } });
      const checked = checkForm(typed);
      if (!checked.ok) return refuse(checked.refusal);
      const { source } = checked;

      if (form.get("confirm") === "1") {
        const added = await addCalendar(ctx.store, { property, url: typed.url, source });
        if (!added.ok) return refuse(added.refusal.message);
        return redirectWithFlash(visit, `/properties/${property.id}`, addedMessage(added.calendar.source, added.warnings));
      }
      const verdict = await checkNewCalendar(ctx.store, property, typed.url);
      if (!verdict.ok) return refuse(verdict.message);
      const result = await previewFeed(typed.url, {
        source,
        allowPrivateNetworks: ctx.allowPrivateNetworks,
        timeoutMs: ctx.feedTimeoutMs,
        now: ctx.now,
      });
      return propertyPage(ctx, visit, property, { ...typed, preview: { result, notes: verdict.warnings } });
    }),
  );

  app.post(
    "/calendars/:id/remove",
    ownerAction(ctx, async (event, visit) => {
      const calendar = await ownedCalendar(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!calendar) return notFoundPage(visit);
      await ctx.store.removeCalendar(calendar.id);
      const text = `Removed the ${calendar.source} calendar and its reservations.`;
      return redirectWithFlash(visit, `/properties/${calendar.propertyId}`, { tone: "ok", text });
    }),
  );

  app.post(
    "/properties/:id/feed",
    ownerAction(ctx, async (event, visit, form) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!property) return notFoundPage(visit);
      const rotate = form.get("rotate") === "1" && property.feedToken !== null;
      await ctx.store.propertyFeedToken(property.id, { rotate });
      const text = rotate
        ? "New feed URL: the old one now answers 404. Paste this one into every channel."
        : "Feed URL created: paste it into each channel's import box.";
      return redirectWithFlash(visit, `/properties/${property.id}#feed`, { tone: rotate ? "warn" : "ok", text, at: "feed" });
    }),
  );
}

// The form's URL and channel as the CLI's options take them: the channel (undefined: detect it from the URL), or why not.
function checkForm(typed: { url: string; source: string }): { ok: true; source?: CalendarSource } | { ok: false; refusal: string } {
  if (normalizeFeedUrl(typed.url) === undefined) return { ok: false, refusal: "The feed URL must be an http://, https:// or webcal:// address." };
  if (typed.source === "") return { ok: true };
  if (!(CALENDAR_SOURCES as readonly string[]).includes(typed.source)) return { ok: false, refusal: "Choose a channel from the list." };
  return { ok: true, source: typed.source as CalendarSource };
}

// The preview was shown before saving; the flash only confirms, with the checks' notes.
function addedMessage(source: ReservationSource, warnings: string[]): Flash {
  const also = warnings.length > 0 ? ` Note: ${warnings.join(" ")}` : "";
  return { tone: warnings.length > 0 ? "warn" : "ok", text: `Added the ${source} calendar. Sync now to import its bookings and blocks.${also}` };
}
