// Dates typed on the command line: `YYYY-MM-DD`, real days only, checked before any request is made.
import { InvalidArgumentError } from "@commander-js/extra-typings";

const FORM = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a `YYYY-MM-DD` flag; commander reports the error as a usage error (exit 2). */
export function parseNightDate(value: string): string {
  const date = value.trim();
  const match = FORM.exec(date);
  // Date.UTC rolls 2027-02-30 over into March; a real date reads back as itself.
  const real = match && new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!)).toISOString().startsWith(date);
  if (!real) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a date: write it as YYYY-MM-DD, e.g. 2027-03-12`);
  return date;
}
