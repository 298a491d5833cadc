// The owner dashboard (CONTRACT §9): server-rendered pages on the API's own port. Every page is a
// file under pages/; this file only puts them on the app.
import type { H3 } from "h3";
import { registerAssets } from "./assets.js";
import type { DashboardContext } from "./context.js";
import { registerCalendarForms } from "./pages/calendars.js";
import { registerForgotPassword } from "./pages/forgot-password.js";
import { registerInvite } from "./pages/invite.js";
import { registerNotifications } from "./pages/notifications.js";
import { registerCleaning } from "./pages/cleaning.js";
import { registerPropertySettings } from "./pages/property-settings.js";
import { registerOwnerCalendarSettings } from "./pages/owner-calendar-section.js";
import { registerProfile } from "./pages/profile.js";
import { registerProperties } from "./pages/properties.js";
import { registerProperty } from "./pages/property.js";
import { registerSignIn } from "./pages/sign-in.js";
import { registerStayAdd } from "./pages/stay-add.js";
import { registerStayCancel } from "./pages/stay-cancel.js";
import { registerSyncNow } from "./pages/sync-now.js";
import { registerTimeline } from "./pages/timeline.js";
import { registerTokens } from "./pages/tokens.js";
import { registerWebhooks } from "./pages/webhooks.js";

export type { DashboardContext } from "./context.js";
export { notFoundPage, errorPage } from "./pages/errors.js";

/** Adds every dashboard route to `app`. */
export function registerDashboard(app: H3, ctx: DashboardContext): void {
  registerAssets(app);
  registerSignIn(app, ctx);
  registerInvite(app, ctx);
  registerProperties(app, ctx);
  registerProperty(app, ctx);
  registerCalendarForms(app, ctx);
  registerStayAdd(app, ctx);
  registerStayCancel(app, ctx);
  registerTimeline(app, ctx);
  registerSyncNow(app, ctx);
  registerTokens(app, ctx);
  registerProfile(app, ctx);
  registerWebhooks(app, ctx);
  registerForgotPassword(app, ctx);
  registerNotifications(app, ctx);
  registerCleaning(app, ctx);
  registerPropertySettings(app, ctx);
  registerOwnerCalendarSettings(app, ctx);
}

/**
 * True for paths that keep the API's JSON answers (CONTRACT §9): `/api/…`, `/ical/…`, `/availability/…` (§15),
 * `/healthz`, and `/metrics` (a scraper's path, §12, even with metrics off), under any mount prefix.
 */
export function isApiPath(pathname: string): boolean {
  return /(?:^|\/)(?:api|ical)(?:\/|$)/.test(pathname) || /(?:^|\/)availability\/[^/]*$/.test(pathname) || /(?:^|\/)(?:healthz|metrics)$/.test(pathname);
}

/** The request path with an invite or reset link's token replaced by `***`, for access logs: the token opens an account. */
export function maskInvitePath(pathname: string): string {
  return pathname.replace(/\/(invite|reset)\/[^/]+/g, "/$1/***");
}
