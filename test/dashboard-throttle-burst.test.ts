// Bursts of password guesses sent at once to real `calsync serve` processes (CONTRACT §9): each check is
// counted before the password is checked, so of 60 concurrent sign-ins or password changes with valid
// CSRF tokens at most 10 check a password (422) and the rest are turned away (429) — on SQLite, and on
// PostgreSQL with the burst split over two instances. A check's answer is what counts it from outside.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import { openStore } from "../src/store/index.js";
import { pageClient, signIn, type PageClient } from "./helpers/dashboard-client.js";
import { startServe, type ServeProcess } from "./helpers/processes.js";
import { postgresKind } from "./helpers/stores.js";

const PASSWORD = "correct horse battery";
const BURST = 60;
const dir = mkdtempSync(path.join(tmpdir(), "calsync-burst-"));
const serves: ServeProcess[] = [];
const postgres = postgresKind();
let passwordHash: string;

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(async () => {
  await Promise.all(serves.splice(0).map((serve) => serve.stop()));
  await postgres.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A database at `location` with owners ann@ and bob@ example.com, both with PASSWORD. */
async function seed(location: string): Promise<void> {
  const store = await openStore(location);
  for (const name of ["ann", "bob"]) {
    const owner = await store.createOwner(name, { email: `${name}@example.com` });
    await store.setOwnerPassword(owner.id, passwordHash);
  }
  await store.close();
}

async function serve(location: string): Promise<ServeProcess> {
  const started = await startServe(["--db", location, "--trust-proxy"]);
  serves.push(started);
  return started;
}

/** Signed-out clients of each server, each holding a valid CSRF token of the sign-in form. */
async function signedOut(urls: string[]): Promise<PageClient[]> {
  const clients = urls.map((url) => pageClient((r) => fetch(r), url));
  for (const client of clients) await client.page("/sign-in");
  return clients;
}

/** How many of the answers had each status. */
function tally(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

/** 60 wrong sign-ins at once, spread over `clients`, each from an address of its own (`address(i)`). */
async function signInBurst(clients: PageClient[], email: (i: number) => string, address: (i: number) => string): Promise<Record<number, number>> {
  const responses = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      clients[i % clients.length]!.post("/sign-in", { email: email(i), password: `wrong guess ${i}` }, { headers: { "x-forwarded-for": address(i) } }),
    ),
  );
  return tally(responses);
}

describe.each([
  { name: "SQLite, one serve", instances: 1, location: async () => path.join(dir, "burst.db") },
  { name: "PostgreSQL, two serve instances", instances: 2, location: () => postgres.create() },
])("a burst of password guesses on $name", ({ instances, location }) => {
  let clients: PageClient[];
  let urls: string[];

  beforeAll(async () => {
    const db = await location();
    await seed(db);
    urls = (await Promise.all(Array.from({ length: instances }, () => serve(db)))).map((s) => s.url);
    clients = await signedOut(urls);
  }, 60_000);

  it("checks at most 10 passwords for one email, whatever the addresses, and then refuses even the right one", async () => {
    const counts = await signInBurst(clients, () => "ann@example.com", (i) => `192.0.2.${i}`);
    expect(counts).toEqual({ 422: 10, 429: BURST - 10 });
    const right = await clients[0]!.post("/sign-in", { email: "ann@example.com", password: PASSWORD }, { headers: { "x-forwarded-for": "192.0.2.200" } });
    expect([right.status, Number(right.headers.get("retry-after")) > 14 * 60]).toEqual([429, true]);
  });

  it("checks at most 10 passwords from one address, whatever the emails", async () => {
    const counts = await signInBurst(clients, (i) => `guess${i}@example.com`, () => "198.51.100.7");
    expect(counts).toEqual({ 422: 10, 429: BURST - 10 });
  });

  it("checks at most 10 current passwords in a burst of password changes, and the email is then refused at sign-in too", async () => {
    const bob = pageClient((r) => fetch(r), urls[0]!, { headers: { "x-forwarded-for": "203.0.113.1" } });
    await signIn(bob, "bob@example.com", PASSWORD);
    await bob.page("/settings/profile");
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) => bob.post("/settings/password", { currentPassword: `wrong guess ${i}`, password: "a brand new password" })),
    );
    expect(tally(responses)).toEqual({ 422: 10, 429: BURST - 10 });
    // No guess changed the password (the session would have been renewed); the email is now throttled
    // for sign-in too, on every instance.
    expect((await bob.get("/properties")).status).toBe(200);
    const fresh = await signedOut([urls[urls.length - 1]!]);
    const signedIn = await fresh[0]!.post("/sign-in", { email: "bob@example.com", password: PASSWORD }, { headers: { "x-forwarded-for": "203.0.113.2" } });
    expect(signedIn.status).toBe(429);
  });
});
