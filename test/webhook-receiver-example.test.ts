// The webhook receiver of docs/webhooks.md (examples/webhook-receiver.ts) is the code the guide shows, and does
// what the guide promises: add it with `calsync webhook add`, sync, deliver, and it prints the verified stay.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";
import { until } from "./helpers/server-fixtures.js";
import { closedPort } from "./helpers/stub-api-server.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const example = path.join(root, "examples/webhook-receiver.ts");
const { tmp, feeds } = useCliFixtures({ built: true });
const bundle = path.join(tmp.dir, "webhook-receiver.mjs");
let child: ChildProcess | undefined;

beforeAll(async () => {
  // "calsync" resolves through package.json "exports", i.e. the built dist/, as for a user.
  await build({ entryPoints: [example], outfile: bundle, bundle: true, platform: "node", format: "esm", logLevel: "silent" });
});
afterAll(async () => {
  child?.kill("SIGKILL");
});

describe("the webhook receiver of docs/webhooks.md", () => {
  it("prints the stay of a signed reservation.created after a sync, and refuses an unsigned request", async () => {
    const db = tmp.db();
    const cli = (...argv: string[]) => runCli([...argv, "--db", db, "--allow-private-networks"]);
    await runCli(["owner", "add", "Ann", "--db", db]);
    const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout) as { id: string };
    const feed = feeds.url("/example.ics", { body: buildIcs([{ uid: "s1", start: day(10), end: day(13), summary: "Reserved" }]) });
    await runCli(["calendar", "add", "--property", property.id, "--url", feed, "--db", db]);
    const port = await closedPort();
    const added = await cli("webhook", "add", "--url", `http://127.0.0.1:${port}/`, "--events", "reservation.created", "--json");
    const { secret } = JSON.parse(added.stdout) as { secret: string };

    child = spawn(process.execPath, [bundle], { env: { PATH: process.env.PATH ?? "", PORT: String(port), CALSYNC_WEBHOOK_SECRET: secret } });
    let stdout = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    const unsigned = async () => (await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).catch(() => undefined))?.status;
    await until(async () => (await unsigned()) === 400);

    expect((await cli("sync", "--local")).code).toBe(0);
    const delivered = await cli("webhook", "deliver", "--json");
    expect(JSON.parse(delivered.stdout)).toEqual({ attempted: 1, delivered: 1, retrying: 0, failed: 0 });
    await until(() => stdout.includes("\n"));
    expect(stdout).toBe(`Sea View Loft: new stay ${day(10)} → ${day(13)}\n`);
  });

  it("is the code block docs/webhooks.md shows, so the two cannot drift", () => {
    const guide = readFileSync(path.join(root, "docs/webhooks.md"), "utf8");
    const blocks = [...guide.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const shown = blocks.find((block) => block.includes("verifyWebhook("));
    expect(shown, "docs/webhooks.md has no ```ts block calling verifyWebhook").toBeDefined();
    const code = (text: string) =>
      text
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.startsWith("//"))
        .map((line) => line.trimEnd());
    expect(code(shown!)).toEqual(code(readFileSync(example, "utf8")));
  });
});
