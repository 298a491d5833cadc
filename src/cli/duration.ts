// Durations people type on the command line: `30s`, `15m`, `12h`, `90d`.
import { UsageError } from "./context.js";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses a whole positive number followed by s, m, h or d into milliseconds; throws UsageError otherwise. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhd])$/i.exec(text.trim());
  const amount = match ? Number(match[1]) : NaN;
  const ms = match ? amount * UNIT_MS[match[2]!.toLowerCase() as keyof typeof UNIT_MS] : NaN;
  if (!match || amount <= 0 || !Number.isSafeInteger(ms)) {
    throw new UsageError(`invalid duration "${text}": use a whole number and a unit (s, m, h or d), e.g. 30s, 15m, 12h, 90d`);
  }
  return ms;
}
