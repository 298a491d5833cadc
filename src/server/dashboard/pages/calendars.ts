// The property page's forms: add a calendar (the CLI's checks, then the preview `calendar test`
// shows), remove one, and create or rotate the outbound feed URL.
import { getRouterParam, type H3 } from "h3";
import { previewFeed, type FeedPreviewResult } from "../../../engine/feed-preview.js";
import { normalizeFeedUrl } from "../../../engine/feed-url.js";
import { CALENDAR_SOURCES, type CalendarSource } from "../../../types.js";
import { addCalendar } from "../../calendar-setup.js";
import { ownerAction, redirectWithFlash, type DashboardContext } from "../context.js";
import { plural, shortDay } from "../format.js";
import type { Flash } from "../layout.js";
import { ownedCalendar, ownedProperty } from "../owned.js";
import { notFoundPage } from "./errors.js";
import { propertyPage } from "./property.js";

/** Adds POST /properties/<id>/calendars, /calendars/<id>/remove and /properties/<id>/feed. */
export function registerCalendarForms(app: H3, ctx: DashboardContext): void {
  app.post(
    "/properties/:id/calendars",
    ownerAction(ctx, async (event, visit, form) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!property) return notFoundPage(visit);
      const feedUrl = (form.get("url") ?? "").trim();
      const chosen = form.get("source") ?? "";
      const refuse = (text: string) => propertyPage(ctx, visit, property, { error: { tone: "error", text }, url: feedUrl, source: chosen });
      if (normalizeFeedUrl(feedUrl) === undefined) return refuse("The feed URL must be an http://, https:// or webcal:// address.");
      if (chosen !== "" && !(CALENDAR_SOURCES as readonly string[]).includes(chosen)) return refuse("Choose a channel from the list.");

      const added = await addCalendar(ctx.store, { property, url: feedUrl, source: (chosen || undefined) as CalendarSource | undefined });
      if (!added.ok) return refuse(added.refusal.message);
      const preview = await previewFeed(feedUrl, {
        source: added.calendar.source,
        allowPrivateNetworks: ctx.allowPrivateNetworks,
        timeoutMs: ctx.feedTimeoutMs,
        now: ctx.now,
      });
      return redirectWithFlash(visit, `/properties/${property.id}`, addedMessage(added.calendar.source, preview, added.warnings));
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
      return redirectWithFlash(visit, `/properties/${property.id}#feed`, { tone: rotate ? "warn" : "ok", text });
    }),
  );
}

// What the owner learns right after adding: what the next sync will import, or why it will fail.
function addedMessage(source: CalendarSource, preview: FeedPreviewResult, warnings: string[]): Flash {
  const also = warnings.length > 0 ? ` Note: ${warnings.join(" ")}` : "";
  if (!preview.ok) {
    const { code, message } = preview.error;
    return { tone: "warn", text: `Added the ${source} calendar, but its feed cannot be read right now (${code}: ${message}).${also}` };
  }
  const p = preview.preview;
  const nights = p.firstNight && p.lastNight ? `, nights ${shortDay(p.firstNight)} → ${shortDay(p.lastNight)}` : "";
  const found = `${plural(p.bookings, "booking", "bookings")} and ${plural(p.blocks, "block", "blocks")}${nights}`;
  return { tone: warnings.length > 0 ? "warn" : "ok", text: `Added the ${source} calendar: its feed has ${found}. Sync now to import them.${also}` };
}
