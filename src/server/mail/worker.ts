// The mail worker (CONTRACT §16): the shared outbox loop (../outbox/pool.ts) over the store's mail outbox,
// so mails get the webhooks' claims, retries for 24 h and backoff. `calsync serve --smtp-url` keeps one running.
import type { ClaimedMail, Store } from "../../store/types.js";
import { startOutboxWorker, type OutboxAttempt, type OutboxQueue, type OutboxWorker, type OutboxWorkerOptions } from "../outbox/pool.js";
import type { MailSender } from "./send.js";

/** Options of `startMailWorker`. */
export interface MailWorkerOptions extends OutboxWorkerOptions {
  store: Pick<Store, "claimMails" | "finishMail" | "releaseMail" | "pruneMails">;
  sender: MailSender;
  /** Where links into the dashboard start; no trailing slash. */
  baseUrl: string;
  /** Called after every attempt, e.g. for the server's log. */
  onAttempt?: (attempt: OutboxAttempt<ClaimedMail>) => void;
}

/** The mail outbox as the shared loop drives it: each mail is its own lane. */
export function mailQueue(options: MailWorkerOptions): OutboxQueue<ClaimedMail> {
  const { store, sender, baseUrl } = options;
  return {
    claim: ({ worker, now, until, limit }) => store.claimMails({ worker, now, until, limit }),
    laneOf: (mail) => mail.id,
    attemptsOf: (mail) => mail.attempts,
    send: (mail, { signal }) => sender.send(mail, { baseUrl, signal }),
    finish: (mail, { worker, at, delivered, error, nextAttemptAt }) => store.finishMail({ id: mail.id, worker, at, sent: delivered, error, nextAttemptAt }),
    release: (mail, { worker, at, error }) => store.releaseMail({ id: mail.id, worker, at, error }),
    prune: (before, now) => store.pruneMails(before, now),
  };
}

/** Starts a worker that sends due mails every `pollMs` and whenever `wake()` is called. */
export function startMailWorker(options: MailWorkerOptions): OutboxWorker {
  return startOutboxWorker(mailQueue(options), options, (attempt) => options.onAttempt?.(attempt));
}
