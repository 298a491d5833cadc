// One mail attempt (CONTRACT §16): rendered from its template and handed to the SMTP server with nodemailer,
// under the mail's stable Message-ID so that a retry of a mail that did arrive is recognisable.
import nodemailer from "nodemailer";
import type { ClaimedMail } from "../../store/types.js";
import type { OutboxSendResult } from "../outbox/pool.js";
import { fromDomain, type MailSettings } from "./config.js";
import { renderMail } from "./templates.js";

/** Sends mails over one SMTP set-up. */
export interface MailSender {
  send(mail: ClaimedMail, options: { baseUrl: string; signal: AbortSignal }): Promise<OutboxSendResult>;
  close(): void;
}

/** Options of `createMailSender`. */
export interface MailSenderOptions extends MailSettings {
  /** Deadline of each SMTP step (connection, greeting, every answer), in milliseconds. @default 10000 */
  timeoutMs?: number;
}

/** A sender over `smtpUrl`; one connection per mail (mails are few). */
export function createMailSender(options: MailSenderOptions): MailSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  const domain = fromDomain(options.from);
  return {
    async send(mail, { baseUrl, signal }) {
      if (!mail.to) return { delivered: false, status: null, error: "the owner has no email any more" };
      if (mail.payload === null) return { delivered: false, status: null, error: "the mail has nothing left to send" };
      let rendered: ReturnType<typeof renderMail>;
      try {
        rendered = renderMail(mail.kind, mail.payload, { ownerName: mail.ownerName, baseUrl });
      } catch {
        return { delivered: false, status: null, error: `the ${mail.kind} mail's stored content is unreadable` };
      }
      const sending = transport.sendMail({
        from: options.from,
        // A mail to someone else (a cleaner) is addressed to the address alone, not under the owner's name.
        to: mail.toOwner ? { name: mail.ownerName, address: mail.to } : mail.to,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        messageId: `<${mail.id}@${domain}>`,
        date: new Date(mail.createdAt),
        headers: { "auto-submitted": "auto-generated", ...rendered.headers },
      });
      // nodemailer cannot cut a send short: stopping gives the claim back; should the mail still arrive, its
      // retry carries the same Message-ID.
      const stopped = new Promise<"stopped">((resolve) => {
        if (signal.aborted) resolve("stopped");
        signal.addEventListener("abort", () => resolve("stopped"), { once: true });
      });
      try {
        const outcome = await Promise.race([sending, stopped]);
        if (outcome === "stopped") {
          sending.catch(() => {});
          return { delivered: false, status: null, error: "attempt interrupted: calsync was stopping", interrupted: true };
        }
        return { delivered: true, status: null };
      } catch (error) {
        return { delivered: false, status: statusOf(error), error: describe(error) };
      }
    },
    close: () => transport.close(),
  };
}

/** The SMTP reply code of a refusal, when there was one. */
function statusOf(error: unknown): number | null {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === "number" ? code : null;
}

// nodemailer's messages name the host and the server's reply, never the password.
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${message}` : message;
}
