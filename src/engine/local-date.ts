// All-day dates are calendar dates, not instants: read them with local getters, never toISOString().

/** `YYYY-MM-DD` of a Date by its local calendar fields (node-ical gives all-day dates as local midnight). */
export function formatDate(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The local date `days` after `date` (DST-safe: moves the calendar fields, not milliseconds). */
export function addLocalDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}
