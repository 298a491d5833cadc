// Mail from the built CLI (CONTRACT §16): `serve --smtp-url` refusing bad settings at start (exit 2, naming
// the flag, never echoing the password), `owner invite` writing its mail, and at-least-once across a crash:
// the SMTP server is down when a double booking is found, serve is SIGKILLed, both come back → one mail.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import { runBin, runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startServe, postSync } from "./helpers/processes.js";
import { ownerWith, until } from "./helpers/server-fixtures.js";
import { SMTP_TEST_PASSWORD, startSmtpServer, type TestSmtpServer } from "./helpers/smtp-server.js";

const { tmp, feeds } = useCliFixtures({ built: true });
let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startSmtpServer({ auth: true });
});
afterAll(async () => {
  await smtp.close();
});

describe("serve's mail settings", () => {
  it.each([
    [["--smtp-url", "http://mail.example", "--mail-from", "a@example.com"], {}, "--smtp-url must start with smtp:// or smtps://"],
    [["--smtp-url", "smtp//calsync:hunter22@mail", "--mail-from", "a@example.com"], {}, "--smtp-url is not a URL"],
    [[], { CALSYNC_SMTP_URL: "mail.example:587", CALSYNC_MAIL_FROM: "a@example.com" }, "CALSYNC_SMTP_URL must start with smtp://"],
    [["--smtp-url", "smtp://u:hunter22@mail.example:587", "--mail-from", "not an address"], {}, "--mail-from must be one address"],
    [["--smtp-url", "smtps://u:hunter22@mail.example"], {}, "--mail-from (or CALSYNC_MAIL_FROM) is needed with --smtp-url"],
  ])("refuses %j %j: exit 2, naming what is wrong", async (flags, env, message) => {
    const result = await runCli(["serve", "--db", tmp.db(), "--port", "0", ...flags], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain("hunter22");
    expect(result.stdout).toBe("");
  });
});

describe("serve behind a proxy with mail on", () => {
  it("refuses to start without --base-url (exit 2, naming it), and starts with it", async () => {
    const flags = ["--db", tmp.db(), "--trust-proxy", "--smtp-url", smtp.url, "--mail-from", "a@example.com"];
    const refused = await runBin(["serve", "--host", "127.0.0.1", "--port", "0", ...flags]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--base-url (or CALSYNC_BASE_URL) is needed with --trust-proxy and --smtp-url");
    expect(refused.stderr).not.toContain(SMTP_TEST_PASSWORD);
    expect(refused.stdout).toBe("");
    const started = await startServe(flags, { CALSYNC_BASE_URL: "https://cal.example.com" });
    await started.stop();
    expect(started.stderr()).toContain("https://cal.example.com");
  });
});

describe("owner invite", () => {
  it("prints the link and writes its mail for serve to send, unless --no-email", async () => {
    const db = tmp.db();
    const store = await openStore(db);
    const owner = await store.createOwner("Ann", { email: "ann@example.com" });
    await store.close();
    const mailed = await runCli(["owner", "invite", "--owner", owner.id, "--db", db, "--base-url", "https://cal.example.com"]);
    expect(mailed.code).toBe(0);
    expect(mailed.stdout).toMatch(/^https:\/\/cal\.example\.com\/invite\/[A-Za-z0-9_-]{43}\n$/);
    expect(mailed.stderr).toContain("Also mailed to ann@example.com by calsync serve, when it runs with --smtp-url.");
    const quiet = await runCli(["owner", "invite", "--owner", owner.id, "--db", db, "--no-email"]);
    expect(quiet.code).toBe(0);
    const reopened = await openStore(db);
    expect(await reopened.listMails()).toMatchObject([{ ownerId: owner.id, kind: "invite", status: "pending" }]);
    await reopened.close();
  });
});

describe("calsync serve killed while the SMTP server is down", () => {
  it("sends the double booking's mail after both are back, exactly once, with one Message-ID", async () => {
    const db = tmp.db();
    let store = await openStore(db);
    const stay = (uid: string, from: number, to: number) => ({ uid, start: day(from), end: day(to), summary: "Reserved" });
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: feeds.url("/crash/a.ics", { body: buildIcs([stay("a", 10, 14)]) }) },
        { source: "booking", url: feeds.url("/crash/b.ics", { body: buildIcs([stay("b", 12, 16)]) }) },
      ],
    });
    await store.setOwnerEmail(ann.ownerId, "ann@example.com");
    await store.close();
    await smtp.down();
    const mailFlags = ["--db", db, "--smtp-url", smtp.url, "--mail-from", "calsync <calsync@example.com>"];

    const first = await startServe(mailFlags);
    expect((await postSync(first.url, ann.token)).status).toBe(200);
    store = await openStore(db);
    try {
      await until(async () => (await store.listMails())[0]?.attempts === 1, 20_000);
      expect((await store.listMails())[0]).toMatchObject({ kind: "booking_conflict", status: "pending" });
      first.child.kill("SIGKILL");
      await first.exited;
      expect(first.stderr()).not.toContain(SMTP_TEST_PASSWORD);

      await smtp.up();
      const second = await startServe(mailFlags);
      // The first retry is due about 5 s after the failed attempt; the restarted worker finds it in the database.
      await smtp.waitFor(1, 30_000);
      await until(async () => (await store.listMails())[0]?.status === "sent");
      await second.stop();
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]!.subject).toBe("Double booking: Loft");
      expect(smtp.received[0]!.messageId).toBe(`<${(await store.listMails())[0]!.id}@example.com>`);
      expect(second.stderr()).not.toContain(SMTP_TEST_PASSWORD);
    } finally {
      await store.close();
    }
  });
});
