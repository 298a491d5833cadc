// A real SMTP server on loopback for the mail tests (the `smtp-server` package), with `mailparser` reading
// what arrived. It can require a login, refuse every login, or be down (its port closed) and come back.
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One mail as it arrived. */
export interface ReceivedMail {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The raw message, headers included. */
  raw: string;
}

/** A running test SMTP server. */
export interface TestSmtpServer {
  readonly port: number;
  /** `smtp://user:password@127.0.0.1:port` (or without a login when none is required). */
  readonly url: string;
  readonly received: ReceivedMail[];
  /** Logins refused so far. */
  readonly refusedLogins: number;
  /** Refuse (true) or accept (false) every login from now on. */
  refuseLogins(refuse: boolean): void;
  /** Closes the port: connections are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Resolves once `count` mails arrived, rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

const USER = "calsync";
const PASSWORD = "s3cret-smtp-password";

/** Starts an SMTP server on 127.0.0.1 and a free port; with `auth` it requires a login. */
export async function startSmtpServer(options: { auth?: boolean } = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let refuse = false;
  let refusedLogins = 0;
  let port = 0;
  const make = () =>
    new SMTPServer({
      secure: false,
      disabledCommands: options.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
      authOptional: !options.auth,
      allowInsecureAuth: true,
      logger: false,
      closeTimeout: 200,
      onAuth(auth, _session, callback) {
        if (!refuse && auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
        refusedLogins++;
        callback(new Error("Invalid username or password"));
      },
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            const address = (value: unknown) => ((value as { text?: string } | undefined)?.text ?? "");
            received.push({
              messageId: parsed.messageId ?? "",
              from: address(parsed.from),
              to: address(parsed.to),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : "",
              raw: parsed.headerLines.map((h) => h.line).join("\n"),
            });
            callback();
          })
          .catch(callback);
      },
    });
  let server = make();
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        port = (server.server.address() as AddressInfo).port;
        resolve();
      });
    });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  await listen();
  let open = true;

  return {
    get port() {
      return port;
    },
    get url() {
      return options.auth ? `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}` : `smtp://127.0.0.1:${port}`;
    },
    received,
    get refusedLogins() {
      return refusedLogins;
    },
    refuseLogins(value) {
      refuse = value;
    },
    async down() {
      if (!open) return;
      open = false;
      await close();
    },
    async up() {
      if (open) return;
      server = make();
      await listen();
      open = true;
    },
    async waitFor(count, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, ${received.length} arrived`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
    },
    async close() {
      if (open) {
        open = false;
        await close();
      }
    },
  };
}

/** The password in `url`, so tests can check it never reaches a log. */
export const SMTP_TEST_PASSWORD = PASSWORD;
