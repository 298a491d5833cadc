// Times and dates as people read them on the dashboard.
import { html, type SafeHtml } from "./html.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** `3 min ago`, `in 89 days`, … of an ISO time relative to `now`, in a `<time>` whose title is the exact UTC time. */
export function relativeTime(iso: string | null, now: Date, never = "never"): SafeHtml {
  if (!iso) return html`<span class="muted">${never}</span>`;
  const ms = Date.parse(iso) - now.getTime();
  return html`<time datetime="${iso}" title="${iso.replace("T", " ").replace(/\.\d+Z$/, " UTC")}">${relativeText(ms)}</time>`;
}

function relativeText(ms: number): string {
  const past = ms < 0;
  const seconds = Math.abs(ms) / 1000;
  // A record stamped by the store a few milliseconds after the page's clock read is "just now", not the future.
  if (seconds < 45) return past || seconds < 5 ? "just now" : "in a moment";
  const [amount, unit] =
    seconds < 3600 ? [Math.round(seconds / 60), "min"] : seconds < 86_400 ? [Math.round(seconds / 3600), "h"] : [Math.round(seconds / 86_400), "day"];
  const text = `${amount} ${unit === "day" && amount !== 1 ? "days" : unit}`;
  return past ? `${text} ago` : `in ${text}`;
}

/** `Fri 12 Mar 2027` of a `YYYY-MM-DD` date. */
export function longDay(date: string): string {
  const d = utcDate(date);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** `12 Mar` of a `YYYY-MM-DD` date. */
export function shortDay(date: string): string {
  const d = utcDate(date);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** Month name and year, e.g. `March 2027`, of a `YYYY-MM-DD` date. */
export function monthLabel(date: string, month: "long" | "short" = "long"): string {
  const d = utcDate(date);
  return `${d.toLocaleString("en", { month, timeZone: "UTC" })} ${d.getUTCFullYear()}`;
}

/** Day of the week of a `YYYY-MM-DD` date, 0 = Sunday. */
export function weekday(date: string): number {
  return utcDate(date).getUTCDay();
}

/** `1 night`, `3 nights`. */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

// Calendar dates are read in UTC, so the machine's zone cannot shift them.
function utcDate(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}
