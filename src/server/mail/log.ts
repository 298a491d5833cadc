// The server's log of mail attempts (CONTRACT §16): one line per mail sent, but an SMTP server that is down
// or refuses our login is one outage, not a line per attempt: a line when it begins, a reminder at most every
// `repeatMs`, and one when mail flows again. Lines name the mail's id and kind, never its recipient's link.
import type { ClaimedMail } from "../../store/types.js";
import type { ServerLog } from "../access-log.js";
import { trackPollOutage } from "../outbox/poll-outage.js";
import type { OutboxAttempt } from "../outbox/pool.js";

/** The `onAttempt` of the mail worker, writing to `log`. */
export function logMailAttempts(log: ServerLog, repeatMs: number, now: () => Date = () => new Date()): (attempt: OutboxAttempt<ClaimedMail>) => void {
  const outage = trackPollOutage(repeatMs, () => now().getTime());
  return ({ item, attempt, delivered, interrupted, error, nextAttemptAt }) => {
    const mail = { mailId: item.id, kind: item.kind, attempt };
    if (interrupted) return;
    if (delivered) {
      const report = outage.succeeded();
      if (report?.state === "recovered") log.event("info", "mail sending resumed", { failedAttempts: report.failedPolls, pausedMs: report.sinceMs });
      log.event("info", "mail sent", mail);
      return;
    }
    if (!nextAttemptAt) log.event("error", "mail given up", { ...mail, error: error ?? "unknown" });
    const report = outage.failed(error);
    if (report?.state === "failing") {
      log.event("error", "mail not sent; retrying with backoff", { ...mail, error: error ?? "unknown", ...(nextAttemptAt ? { retryAt: nextAttemptAt.toISOString() } : {}) });
    } else if (report?.state === "still-failing") {
      log.event("error", "mail still not sent", { error: error ?? "unknown", failedAttempts: report.failedPolls, sinceMs: report.sinceMs });
    }
  };
}
