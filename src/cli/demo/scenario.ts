// What the demo puts in its database: one owner, one property, four calendars (one broken), one token.
import { generateToken } from "../../server/tokens.js";
import type { Calendar, Owner, Property, Store } from "../../store/types.js";
import type { CalendarSource, SyncResponse } from "../../types.js";
import type { FeedHost } from "./feed-host.js";

/** One calendar of the demo and the sample file its feed serves first. */
export interface DemoCalendar {
  source: CalendarSource;
  /** Channel name as people know it. */
  label: string;
  /** File under `demo/feeds/`. */
  file: string;
  /** Why this feed is in the demo, for the narration. */
  plays: string;
}

/** The demo's calendars, in creation order (so also the order of the results). */
export const DEMO_CALENDARS: readonly DemoCalendar[] = [
  { source: "airbnb", label: "Airbnb", file: "airbnb.ics", plays: "3 stays (one already over) and 3 blocked nights" },
  { source: "booking", label: "Booking.com", file: "booking.ics", plays: "2 sold periods, as Booking.com exports them" },
  { source: "vrbo", label: "Vrbo", file: "vrbo.ics", plays: "a stay and an owner block" },
  { source: "expedia", label: "Expedia", file: "maintenance.html", plays: "answers an HTML maintenance page: broken on purpose" },
];

/** The source whose feed is broken on purpose. */
export const BROKEN_SOURCE: CalendarSource = "expedia";

/** The feed that changes between the two syncs, the file it changes to, and what changes in it. */
export const CHANGING_FEED = {
  source: "airbnb" as CalendarSource,
  label: "Airbnb",
  file: "airbnb-changed.ics",
  what: "One guest moves their stay, another cancels (the stay drops off the feed), a new guest books",
};

/** The property of the demo. */
export const DEMO_PROPERTY = "Sea View Loft";

/** What the scenario created. */
export interface Scenario {
  owner: Owner;
  property: Property;
  calendars: Calendar[];
  /** The plain API token (the store only keeps its hash). */
  token: string;
  /** The token's display prefix, e.g. `cs_AbC1`: what the narration shows instead of the token. */
  tokenPrefix: string;
}

/** Adds the demo's owner, property, calendars (served by `feeds`) and an API token to `store`. */
export async function setUpScenario(store: Store, feeds: FeedHost): Promise<Scenario> {
  const owner = await store.createOwner("Demo Owner");
  const property = await store.createProperty(owner.id, DEMO_PROPERTY);
  // Sources are given explicitly: loopback URLs say nothing about the channel.
  const calendars = [];
  // One at a time: calendars sync in creation order, which the demo's table follows.
  for (const calendar of DEMO_CALENDARS) {
    calendars.push(await store.createCalendar({ propertyId: property.id, source: calendar.source, url: feeds.serve(calendar.source, calendar.file) }));
  }
  const generated = generateToken();
  await store.createToken({ ownerId: owner.id, name: "demo", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
  return { owner, property, calendars, token: generated.token, tokenPrefix: generated.prefix };
}

/** Swaps the changing feed to its later version (a new, a moved and a cancelled stay). */
export function changeFeed(feeds: FeedHost): void {
  feeds.serve(CHANGING_FEED.source, CHANGING_FEED.file);
}

/**
 * What went differently from the design, as sentences (empty when the demo ran as designed): only the
 * broken calendar fails, with `not_icalendar`, and the changed feed reports 1 created, 1 updated, 1 cancelled.
 */
export function demoProblems(first: SyncResponse, second: SyncResponse): string[] {
  const problems: string[] = [];
  for (const [name, response] of [["first", first], ["second", second]] as const) {
    if (response.results.length !== DEMO_CALENDARS.length) {
      problems.push(`${name} sync: ${response.results.length} results instead of ${DEMO_CALENDARS.length}`);
    }
    for (const entry of response.results) {
      const broken = entry.source === BROKEN_SOURCE;
      if (broken && entry.result.error?.code !== "not_icalendar") {
        problems.push(`${name} sync: ${entry.source} should fail with not_icalendar`);
      }
      if (!broken && !entry.ok) {
        problems.push(`${name} sync: ${entry.source} failed (${entry.result.error?.code}: ${entry.result.error?.message})`);
      }
    }
  }
  const changed = second.results.find((entry) => entry.source === CHANGING_FEED.source)?.result;
  if (changed && (changed.reservationsCreated !== 1 || changed.reservationsUpdated !== 1 || changed.reservationsCancelled !== 1)) {
    problems.push(`second sync: ${CHANGING_FEED.source} should report 1 created, 1 updated, 1 cancelled`);
  }
  return problems;
}
