// The cleaning link (CONTRACT §18) on a real server and both stores with real loopback feeds: made on first
// ask (reading never makes one), one timed event per turnover in the property's zone with a VTIMEZONE, no
// guest data, a UID per departing reservation that follows a moved stay and leaves with a cancelled one,
// the owner's link over all properties, rotation and revocation.
import { afterAll, describe, expect, it } from "vitest";
import ical from "node-ical";
import { openStore } from "../src/store/open-store.js";
import { runCli } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

const compact = (date: string) => date.replaceAll("-", "");
// The events of a served calendar: UID → {start line, end line, summary, description}.
function events(body: string) {
  const found = new Map<string, { start: string; end: string; summary: string; description: string }>();
  for (const block of body.replace(/\r\n[ \t]/g, "").split("BEGIN:VEVENT").slice(1)) {
    const line = (name: string) => new RegExp(`^${name}[:;](.*)$`, "m").exec(block)?.[1] ?? "";
    found.set(line("UID"), { start: line("DTSTART"), end: line("DTEND"), summary: line("SUMMARY"), description: line("DESCRIPTION").replaceAll("\\n", "\n") });
  }
  return found;
}

describe.each(storeKinds())("cleaning links on $name", (kind: StoreKind) => {
  const { serve, feed } = useServerFixtures(kind);
  const opened: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  const setUp = async () => {
    const location = await kind.create();
    const store = await openStore(location);
    opened.push(store);
    let airbnb = [
      { uid: "a1", start: day(10), end: day(13), summary: "Reserved - Kim Guest", description: "Phone Number (Last 4 Digits): 1234" },
      { uid: "a2", start: day(13), end: day(15), summary: "Reserved - Lee Guest" },
      { uid: "a3", start: day(20), end: day(22), summary: "Reserved - Max Guest" },
    ];
    const airbnbUrl = feed((_req, res) => void res.writeHead(200, { "content-type": "text/calendar" }).end(buildIcs(airbnb)));
    const ann = await ownerWith(store, "Ann", {
      Loft: [{ source: "airbnb", url: airbnbUrl }],
      Hut: [{ source: "vrbo", url: feed({ body: buildIcs([{ uid: "v1", start: day(11), end: day(12), summary: "Reserved - Zed" }]) }) }],
    });
    const loft = ann.propertyIds.Loft!;
    await store.updateProperty(loft, { timeZone: "Europe/Lisbon", checkInTime: "16:00", checkOutTime: "10:00" });
    const server = await serve(store);
    const sync = async () => expect((await post(server, ann.token)).status).toBe(200);
    await sync();
    const env = { CALSYNC_DB: location, CALSYNC_BASE_URL: server.url };
    const link = async (args: string[]) => {
      const result = await runCli([...args, "--json"], { env });
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as { url: string | null };
    };
    const rsv = async (uid: string) => (await store.listReservations({ propertyId: loft })).find((r) => r.uid === uid)!.id;
    return { store, server, ann, loft, sync, link, rsv, setAirbnb: (next: typeof airbnb) => void (airbnb = next) };
  };

  it("is null until asked for, then carries one event per turnover from check-out to check-in in the zone, without guest data", async () => {
    const { server, ann, loft, link, rsv } = await setUp();
    const property = async () => (await (await fetch(`${server.url}/api/v1/properties/${loft}`, { headers: { "x-api-key": ann.token } })).json()) as { cleaningUrl: string | null };
    expect((await property()).cleaningUrl).toBeNull();
    expect((await property()).cleaningUrl).toBeNull();
    const { url } = await link(["property", "cleaning", loft]);
    expect(url).toMatch(new RegExp(`^${server.url}/cleaning/[A-Za-z0-9]{32}\\.ics$`));
    expect((await property()).cleaningUrl).toBe(url);
    expect((await link(["property", "cleaning", loft])).url).toBe(url);

    const res = await fetch(url!);
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/calendar; charset=utf-8"]);
    const body = await res.text();
    expect(body).toContain("BEGIN:VTIMEZONE\r\nTZID:Europe/Lisbon");
    for (const secret of ["Kim", "Lee", "Max", "Zed", "1234", "airbnb", "Reserved"]) expect(body).not.toContain(secret);
    const found = events(body);
    expect([...found.keys()]).toEqual([`${await rsv("a1")}-cleaning@calsync`, `${await rsv("a2")}-cleaning@calsync`, `${await rsv("a3")}-cleaning@calsync`]);
    expect(found.get(`${await rsv("a1")}-cleaning@calsync`)).toEqual({
      start: `TZID=Europe/Lisbon:${compact(day(13))}T100000`,
      end: `TZID=Europe/Lisbon:${compact(day(13))}T160000`,
      summary: "Cleaning: Loft (same day)",
      description: `Next arrival: ${day(13)} at 16:00`,
    });
    expect(found.get(`${await rsv("a3")}-cleaning@calsync`)).toMatchObject({ summary: "Cleaning: Loft", description: "No next arrival booked" });
    // A calendar app reads the times in Lisbon's clock, whatever the server's zone.
    const parsed = Object.values(ical.sync.parseICS(body)).filter((c) => c?.type === "VEVENT") as Array<{ start: Date }>;
    const lisbonHour = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Lisbon", hour: "2-digit", hour12: false }).format(parsed[0]!.start);
    expect(lisbonHour).toBe("10");
  });

  it("moves a moved stay's cleaning under the same UID, drops a cancelled one's, and follows a zone change", async () => {
    const { loft, link, sync, rsv, setAirbnb, store } = await setUp();
    const { url } = await link(["property", "cleaning", loft]);
    const a1 = `${await rsv("a1")}-cleaning@calsync`;
    const a3 = `${await rsv("a3")}-cleaning@calsync`;
    setAirbnb([
      { uid: "a1", start: day(10), end: day(12), summary: "Reserved - Kim Guest", description: "" },
      { uid: "a2", start: day(13), end: day(15), summary: "Reserved - Lee Guest" },
      { uid: "a4", start: day(30), end: day(31), summary: "Reserved - New" },
    ]);
    await sync();
    const after = events(await (await fetch(url!)).text());
    expect(after.get(a1)).toMatchObject({ start: `TZID=Europe/Lisbon:${compact(day(12))}T100000`, summary: "Cleaning: Loft", description: `Next arrival: ${day(13)} at 16:00` });
    expect(after.has(a3)).toBe(false);
    await store.updateProperty(loft, { timeZone: "America/New_York" });
    expect(events(await (await fetch(url!)).text()).get(a1)?.start).toBe(`TZID=America/New_York:${compact(day(12))}T100000`);
  });

  it("serves the owner's link over every property, and answers 404 once rotated or revoked", async () => {
    const { link, loft } = await setUp();
    const { url: owner } = await link(["owner", "cleaning", "--owner", "Ann"]);
    const body = await (await fetch(owner!)).text();
    expect([...events(body).values()].map((e) => e.summary)).toEqual(["Cleaning: Hut", "Cleaning: Loft (same day)", "Cleaning: Loft", "Cleaning: Loft"]);
    expect(body).not.toContain("Zed");
    const { url: rotated } = await link(["owner", "cleaning", "--rotate"]);
    expect(rotated).not.toBe(owner);
    expect((await fetch(owner!)).status).toBe(404);
    expect((await fetch(rotated!)).status).toBe(200);
    const { url: property } = await link(["property", "cleaning", loft]);
    expect(await link(["property", "cleaning", loft, "--revoke"])).toEqual({ propertyId: loft, url: null });
    expect((await fetch(property!)).status).toBe(404);
    const both = await runCli(["property", "cleaning", loft, "--rotate", "--revoke"], { env: {} });
    expect(both.code).toBe(2);
  });
});
