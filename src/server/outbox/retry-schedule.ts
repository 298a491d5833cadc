// When a failed delivery is tried again (CONTRACT §11): growing waits with jitter, for more than 24 hours.

/**
 * Waits after the 1st, 2nd, … failed attempt: 9 attempts in all. With ±20 % jitter the first retry comes
 * within 6 s and the last attempt no earlier than 25.7 h after the first, so a receiver down for a day
 * still gets the event.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 60_000, 10 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 10 * 3_600_000, 12 * 3_600_000,
];

/** Share of a wait that jitter may add or take away, so that many deliveries failing together do not retry together. */
const JITTER = 0.2;

/**
 * When to try again after `attempts` attempts have failed, or null when the schedule is spent (the
 * delivery then fails). `random` returns [0, 1), like Math.random.
 */
export function nextAttemptAt(attempts: number, now: Date, schedule: readonly number[], random: () => number): Date | null {
  const wait = schedule[attempts - 1];
  if (wait === undefined) return null;
  return new Date(now.getTime() + Math.round(wait * (1 - JITTER + 2 * JITTER * random())));
}
