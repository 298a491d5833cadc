// `calsync calendar add` catches an owner's usual mistakes (CONTRACT §6), through the built CLI on a real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isBuilt, runBin, tempDir } from "./helpers/cli.js";

const tmp = tempDir();
beforeAll(() => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
});
afterAll(() => tmp.remove());

const AIRBNB = "https://www.airbnb.com/calendar/ical/4815162342.ics?s=0123456789abcdef&locale=en";

/** Runs `calsync …argv --json` on `db`, expects success, and returns parsed stdout. */
async function json<T = any>(db: string, argv: string[]): Promise<T> {
  const result = await runBin([...argv, "--json", "--db", db]);
  expect(result.code, `${argv.join(" ")}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** A database with owner Ann and her properties "Sea View Loft" and "Barn". */
async function setup() {
  const db = tmp.db();
  await json(db, ["owner", "add", "Ann"]);
  const loft = await json(db, ["property", "add", "Sea View Loft"]);
  const barn = await json(db, ["property", "add", "Barn"]);
  return { db, loft, barn };
}

const calendarsOf = (db: string, propertyId: string) => json<Array<{ id: string }>>(db, ["calendar", "list", "--property", propertyId]);

describe("calsync calendar add", () => {
  it("refuses a feed the property already has, spelled with webcal, another host case, a trailing slash or another query order", async () => {
    const { db, loft } = await setup();
    const first = await json(db, ["calendar", "add", "--property", loft.id, "--url", AIRBNB]);
    const spellings = [
      AIRBNB.replace("https:", "webcal:"),
      AIRBNB.replace("www.airbnb.com", "WWW.Airbnb.COM"),
      AIRBNB.replace(".ics?", ".ics/?"),
      "https://www.airbnb.com/calendar/ical/4815162342.ics?locale=en&s=0123456789abcdef",
    ];
    for (const url of spellings) {
      const result = await runBin(["calendar", "add", "--property", loft.id, "--url", url, "--db", db]);
      expect(result.code, url).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^error: this feed is already calendar ${first.id} of "Sea View Loft"`, "m"));
      // The secret of the URL stays out of the message.
      expect(result.stderr).not.toContain("0123456789abcdef");
      expect(result.stdout).toBe("");
    }
    expect(await calendarsOf(db, loft.id)).toEqual([first]);
  });

  it("adds the same feed to another property of the owner, warning on stderr with the first calendar's id", async () => {
    const { db, loft, barn } = await setup();
    const first = await json(db, ["calendar", "add", "--property", loft.id, "--url", AIRBNB]);
    const result = await runBin(["calendar", "add", "--property", barn.id, "--url", AIRBNB.replace("https:", "webcal:"), "--json", "--db", db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`\\[warn\\].*already calendar ${first.id} of "Sea View Loft"`));
    const second = JSON.parse(result.stdout);
    expect(second).toEqual({
      id: expect.any(String), propertyId: barn.id, source: "airbnb", url: expect.any(String), consecutiveFailures: 0, failingSince: null,
    });
    expect(await calendarsOf(db, barn.id)).toEqual([second]);
  });

  it("refuses the property's own outbound feed, whatever host or scheme it is written with", async () => {
    const { db, loft } = await setup();
    const feed = await json(db, ["property", "feed", loft.id]);
    const token = /\/ical\/([A-Za-z0-9]+)\.ics$/.exec(feed.url)![1]!;
    for (const url of [feed.url, `webcal://CAL.Example.com/ical/${token}.ics?exclude=airbnb`]) {
      const result = await runBin(["calendar", "add", "--property", loft.id, "--url", url, "--db", db]);
      expect(result.code, url).toBe(1);
      expect(result.stderr).toMatch(/^error: this URL is this property's own outbound feed \("Sea View Loft"\), calsync's own export: importing it would feed calsync's export back into itself/m);
      expect(result.stderr).not.toContain(token);
    }
    expect(await calendarsOf(db, loft.id)).toEqual([]);
  });

  it("refuses another property's outbound feed served by the same database", async () => {
    const { db, loft, barn } = await setup();
    const feed = await json(db, ["property", "feed", barn.id, "--base-url", "https://cal.example.com/calsync"]);
    const result = await runBin(["calendar", "add", "--property", loft.id, "--url", `${feed.url}?exclude=booking`, "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: this URL is the outbound feed of your property "Barn"/m);
    expect(await calendarsOf(db, loft.id)).toEqual([]);
  });

  it("adds a feed URL shaped like calsync's whose token this database never issued", async () => {
    const { db, loft } = await setup();
    const added = await json(db, ["calendar", "add", "--property", loft.id, "--url", "https://other-calsync.example.com/ical/Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp.ics"]);
    expect(added.propertyId).toBe(loft.id);
  });
});
