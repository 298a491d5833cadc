// Records of the mail outbox (CONTRACT §16), as the store hands them to the mail worker and the dashboard.

/** What a mail is about; each kind has its template (src/server/mail/templates.ts). */
export type MailKind = "invite" | "password_reset" | "booking_conflict" | "calendar_failed" | "calendar_recovered" | "channel_stale" | "channel_recovered" | "channel_exposed";

/** `pending` until sent (`sent`), or `failed` once the retries are spent or the mail ran out of time. */
export type MailStatus = "pending" | "sent" | "failed";

/** The owner's choice of mails (the dashboard's Notifications page); both on by default. */
export interface NotificationSettings {
  /** "Email me about double bookings". */
  conflicts: boolean;
  /** "Email me about failing calendars" (and their recovery). */
  calendars: boolean;
  /** "Email me when a channel stops reading my calendar" (and when it reads again, and nights it may still sell). */
  channels: boolean;
}

/** A mail to write with a change, in its transaction. */
export interface QueuedMail {
  kind: MailKind;
  /** What the template needs, as JSON-able data; for invite and reset it holds the one-time link until sent. */
  payload: unknown;
  /** Not sent after this (the link in it no longer works, or the news is stale). */
  expiresAt: Date;
}

/** One mail as `listMails` shows it (never its payload: it may hold a one-time link). */
export interface MailRecord {
  /** `mail_…`: the base of its `Message-ID`, the same on every attempt. */
  id: string;
  ownerId: string;
  kind: MailKind;
  status: MailStatus;
  attempts: number;
  createdAt: string;
  expiresAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
}

/** A mail claimed by one worker: everything it needs to send it. */
export interface ClaimedMail {
  id: string;
  ownerId: string;
  ownerName: string;
  /** The owner's email now; null when it was removed since (the mail then fails). */
  to: string | null;
  kind: MailKind;
  payload: unknown;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: string;
}

/** What `claimMails` takes. */
export interface MailClaim {
  worker: string;
  now: Date;
  /** The claim holds until then; after it another worker may take the mail (its holder died). */
  until: Date;
  limit: number;
}

/** How an attempt ended, for `finishMail`. */
export interface MailAttempt {
  id: string;
  worker: string;
  at: Date;
  sent: boolean;
  /** Why it failed; null when sent. */
  error: string | null;
  /** When to try again; null after a success or the last attempt. */
  nextAttemptAt: Date | null;
}

/** An attempt cut short by its worker stopping, for `releaseMail`: it does not count. */
export interface InterruptedMailAttempt {
  id: string;
  worker: string;
  at: Date;
  error: string;
}
