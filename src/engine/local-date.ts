// All-day dates are calendar dates, not instants: read them with local getters, never toISOString().

/** `YYYY-MM-DD` of a Date by its local calendar fields (node-ical gives all-day dates as local midnight). */
export function formatDate(date: Date): string {
  const year = date.getFullYear();
  const month = date.getMonth() + 1;
  const day = date.getDate();
  return `${year >= 1000 ? year : String(year).padStart(4, "0")}-${month < 10 ? "0" : ""}${month}-${day < 10 ? "0" : ""}${day}`;
}

/** The local date `days` after `date` (DST-safe: moves the calendar fields, not milliseconds). */
export function addLocalDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}
