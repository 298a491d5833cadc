// While the database is down, every poll of the outbox fails (once a second): this turns that stream of
// failures into three reports, so a log says when it began, that it goes on, and when it ended.

/** What the worker reports of its polls: the first failure, a reminder while they go on, and the recovery. */
export type PollHealthReport =
  | { state: "failing"; error: unknown }
  | { state: "still-failing"; error: unknown; failedPolls: number; sinceMs: number }
  | { state: "recovered"; failedPolls: number; sinceMs: number };

/** Reports of one worker's polls; each method returns the report to make now, if any. */
export interface PollOutage {
  failed(error: unknown): PollHealthReport | undefined;
  succeeded(): PollHealthReport | undefined;
}

/** Follows polls as they fail and succeed; a reminder comes at most every `repeatMs` (read from `now`, in ms). */
export function trackPollOutage(repeatMs: number, now: () => number): PollOutage {
  let since: number | undefined;
  let reportedAt = 0;
  let failedPolls = 0;
  return {
    failed(error) {
      const at = now();
      failedPolls++;
      if (since === undefined) {
        since = reportedAt = at;
        return { state: "failing", error };
      }
      if (at - reportedAt < repeatMs) return undefined;
      reportedAt = at;
      return { state: "still-failing", error, failedPolls, sinceMs: at - since };
    },
    succeeded() {
      if (since === undefined) return undefined;
      const report: PollHealthReport = { state: "recovered", failedPolls, sinceMs: now() - since };
      since = undefined;
      failedPolls = 0;
      return report;
    },
  };
}
