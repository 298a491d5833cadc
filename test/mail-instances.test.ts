// Several `calsync serve` instances on one PostgreSQL database (CONTRACT §10, §16): every instance runs a mail
// worker, and each mail is sent by one of them, once.
import { afterAll, describe, expect, it } from "vitest";
import { issueInvite } from "../src/server/accounts.js";
import { startServer, type RunningServer } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { until } from "./helpers/server-fixtures.js";
import { startSmtpServer } from "./helpers/smtp-server.js";
import { postgresKind } from "./helpers/stores.js";

const kind = postgresKind();
afterAll(() => kind.dispose());

describe("mail on several instances sharing PostgreSQL", () => {
  it("sends each of many mails once, whichever instance claims it", async () => {
    const smtp = await startSmtpServer();
    const location = await kind.create();
    const stores: Store[] = [];
    const servers: RunningServer[] = [];
    try {
      for (let i = 0; i < 3; i++) stores.push(await openStore(location));
      for (const store of stores) {
        servers.push(await startServer({ store, port: 0, host: "127.0.0.1", parseThreads: 0, log: () => {}, mail: { smtpUrl: smtp.url, from: "calsync@example.com", pollMs: 20 } }));
      }
      const owner = await stores[0]!.createOwner("Ann", { email: "ann@example.com" });
      for (let i = 0; i < 12; i++) await issueInvite(stores[i % 3]!, owner.id, servers[0]!.url, new Date(), { email: true });
      await until(async () => (await stores[0]!.listMails()).every((mail) => mail.status === "sent"), 30_000);
      await Promise.all(servers.splice(0).map((server) => server.close({ graceMs: 2000 })));
      expect(smtp.received).toHaveLength(12);
      expect(new Set(smtp.received.map((mail) => mail.messageId)).size).toBe(12);
    } finally {
      await Promise.all(servers.map((server) => server.close({ graceMs: 2000 })));
      for (const store of stores) await store.close();
      await smtp.close();
    }
  });
});
