// "What each channel has seen" in words people read (CONTRACT §17): the CLI's table and the dashboard say the
// same "1 h 40 min ago" and "10–15 Jul". Pure, no Node APIs.

const CHANNEL_NAMES: Record<string, string> = {
  airbnb: "Airbnb",
  booking: "Booking.com",
  vrbo: "Vrbo",
  expedia: "Expedia",
  google: "Google Calendar",
  tripadvisor: "Tripadvisor",
  agoda: "Agoda",
  other: "Another channel",
  direct: "A direct stay",
};

/** A source as its owner knows it: "Booking.com". */
export function channelName(source: string): string {
  return CHANNEL_NAMES[source] ?? source;
}

/** A span as people say it: "45 s", "40 min", "1 h 40 min", "2 d 3 h". */
export function spanWords(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** "read 1 h 40 min ago", or "never read". */
export function readAgo(lastReadAt: string | null, now: Date): string {
  if (lastReadAt === null) return "never read";
  return `read ${spanWords((now.getTime() - Date.parse(lastReadAt)) / 1000)} ago`;
}

/** Dates (sorted `YYYY-MM-DD`) as runs of consecutive nights: `[first, last]`, both nights. */
export function nightRuns(dates: readonly string[]): Array<[string, string]> {
  const runs: Array<[string, string]> = [];
  for (const date of dates) {
    const last = runs.at(-1);
    if (last && nextDay(last[1]) === date) last[1] = date;
    else runs.push([date, date]);
  }
  return runs;
}

/** Runs of nights as `10–15 Jul`, `30 Jul–2 Aug`, `3 Aug`; `locale` for month names. @default "en-GB" */
export function nightRangesWords(dates: readonly string[], locale = "en-GB"): string {
  const month = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleString(locale, { month: "short", timeZone: "UTC" });
  const day = (date: string) => String(Number(date.slice(8, 10)));
  return nightRuns(dates)
    .map(([first, last]) => {
      if (first === last) return `${day(first)} ${month(first)}`;
      if (first.slice(0, 7) === last.slice(0, 7)) return `${day(first)}–${day(last)} ${month(last)}`;
      return `${day(first)} ${month(first)}–${day(last)} ${month(last)}`;
    })
    .join(", ");
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
