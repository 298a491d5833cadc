// `calsync availability` for people: one calendar grid per month, weeks from Monday, taken nights in
// brackets (and red on a colour terminal) so they read without colour too. Pure: nights in, text out.
import type { AvailabilityNight } from "../../resource-types.js";
import type { Paint } from "../table.js";

/** Options of `renderMonthGrids`. */
export interface MonthGridOptions {
  /** Colours; none when left out. */
  paint?: Paint;
  /** Characters per line the grids may use; months sit side by side as far as they fit. @default 80 */
  width?: number;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = " Mo  Tu  We  Th  Fr  Sa  Su ";
/** Every cell is four characters: ` 12 ` free, `[12]` or ` [3]` taken, blank outside the range asked about. */
const CELL = 4;
const MONTH_WIDTH = 7 * CELL;
const GAP = "  ";

type Night = Pick<AvailabilityNight, "date" | "available">;

/** The nights (`YYYY-MM-DD`, in order, as an Availability lists them) as month grids; "" for none. */
export function renderMonthGrids(nights: readonly Night[], options: MonthGridOptions = {}): string {
  const paint: Paint = options.paint ?? ((_color, text) => text);
  const months = [...groupByMonth(nights)].map(([month, days]) => monthLines(month, days, paint));
  const perRow = Math.max(1, Math.floor(((options.width ?? 80) + GAP.length) / (MONTH_WIDTH + GAP.length)));
  const blocks: string[] = [];
  for (let i = 0; i < months.length; i += perRow) blocks.push(sideBySide(months.slice(i, i + perRow)));
  return blocks.join("\n\n") + (blocks.length > 0 ? "\n" : "");
}

// "2031-03" → the nights of that month asked about, by day of the month.
function groupByMonth(nights: readonly Night[]): Map<string, Map<number, boolean>> {
  const months = new Map<string, Map<number, boolean>>();
  for (const night of nights) {
    const key = night.date.slice(0, 7);
    const days = months.get(key) ?? new Map<number, boolean>();
    days.set(Number(night.date.slice(8, 10)), night.available);
    months.set(key, days);
  }
  return months;
}

// The title, the weekday header, then only the weeks holding a night asked about.
function monthLines(month: string, days: Map<number, boolean>, paint: Paint): string[] {
  const year = Number(month.slice(0, 4));
  const monthIndex = Number(month.slice(5, 7)) - 1;
  const length = new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
  const mondayFirst = (new Date(Date.UTC(year, monthIndex, 1)).getUTCDay() + 6) % 7;
  const title = `${MONTHS[monthIndex]} ${year}`;
  const lines = [paint("bold", title) + " ".repeat(MONTH_WIDTH - title.length), WEEKDAYS];
  for (let start = 1 - mondayFirst; start <= length; start += 7) {
    const week = Array.from({ length: 7 }, (_, i) => start + i);
    if (!week.some((day) => days.has(day))) continue;
    lines.push(week.map((day) => cell(day, days.get(day), paint)).join(""));
  }
  return lines;
}

function cell(day: number, available: boolean | undefined, paint: Paint): string {
  if (available === undefined) return " ".repeat(CELL);
  return available ? `${String(day).padStart(3, " ")} ` : paint("red", `[${day}]`.padStart(CELL, " "));
}

// Months laid next to each other line by line; a shorter month is padded with blank lines.
function sideBySide(months: string[][]): string {
  const height = Math.max(...months.map((lines) => lines.length));
  const rows: string[] = [];
  for (let row = 0; row < height; row++) {
    rows.push(months.map((lines) => lines[row] ?? " ".repeat(MONTH_WIDTH)).join(GAP).trimEnd());
  }
  return rows.join("\n");
}
