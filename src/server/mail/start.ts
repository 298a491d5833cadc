// Mail in `calsync serve` (CONTRACT §16): the settings checked at start, then a sender and a worker on the
// mail outbox, logged without the SMTP password.
import type { Store } from "../../store/types.js";
import type { ServerLog } from "../access-log.js";
import type { PollHealthReport } from "../outbox/poll-outage.js";
import type { OutboxWorker, OutboxWorkerOptions } from "../outbox/pool.js";
import { BEHIND_A_PROXY, checkMailFrom, checkSmtpUrl, maskSmtpUrl, type MailSettings } from "./config.js";
import { logMailAttempts } from "./log.js";
import { createMailSender } from "./send.js";
import { startMailWorker } from "./worker.js";

/** What `ServeOptions.mail` takes. */
export type MailServeSettings = MailSettings &
  Pick<OutboxWorkerOptions, "retryScheduleMs" | "timeoutMs" | "now" | "random" | "pollReportEveryMs"> & {
    /** Where links in mails start (no trailing slash). @default the URL serve listens at */
    baseUrl?: string;
    /** How often the mail outbox is looked at, in milliseconds. @default 1000 */
    pollMs?: number;
    /** Least time between two log lines of one outage of the SMTP server, in milliseconds. @default 3600000 */
    outageReportEveryMs?: number;
  };

/** A mistake in the settings fails the start, not every mail a day later. */
export function assertMailSettings(mail: MailServeSettings, trustProxy: boolean): void {
  const smtp = checkSmtpUrl(mail.smtpUrl);
  if (!smtp.ok) throw new Error(`invalid SMTP URL: it ${smtp.message}`);
  const from = checkMailFrom(mail.from);
  if (!from.ok) throw new Error(`invalid mail From: it ${from.message}`);
  if (trustProxy && !mail.baseUrl) throw new Error(`mail.baseUrl is needed with trustProxy: ${BEHIND_A_PROXY}`);
}

/** Starts sending the mail outbox; `stop()` waits for attempts in flight and closes the transport. */
export function startServeMail(
  mail: MailServeSettings,
  context: { store: Store; log: ServerLog; serverUrl: string; onPollHealth: (report: PollHealthReport) => void },
): OutboxWorker {
  const { smtpUrl, from, baseUrl = context.serverUrl, outageReportEveryMs = 3_600_000, ...settings } = mail;
  const { log } = context;
  const sender = createMailSender({ smtpUrl, from, timeoutMs: settings.timeoutMs });
  log.event("info", "mail", { smtp: maskSmtpUrl(smtpUrl), from, links: baseUrl });
  const worker = startMailWorker({
    ...settings,
    store: context.store,
    sender,
    baseUrl,
    onAttempt: logMailAttempts(log, outageReportEveryMs, settings.now),
    onPollHealth: context.onPollHealth,
    onError: (error) => log.event("error", "mail sending failed", { error: error instanceof Error ? error.message : String(error) }),
  });
  return {
    wake: worker.wake,
    async stop(options) {
      await worker.stop(options);
      sender.close();
    },
  };
}
