// How a parse result crosses back from a worker thread. A structured clone of 20,000 events costs the
// receiving thread 130–440 ms in one piece (measured); JSON text costs about a third of that, and cut
// into chunks it is read between event-loop turns, so no single step holds the server for long.
import type { FeedEvent } from "./model.js";
import type { ParseFeedResult } from "./parse-feed.js";
import type { UnreadableEvent } from "./unreadable-events.js";

/** A parse result as a worker sends it: the events as JSON arrays of at most EVENTS_PER_CHUNK each. */
export type PackedParseResult =
  | { ok: true; chunks: string[]; unreadable: UnreadableEvent[] }
  | Extract<ParseFeedResult, { ok: false }>;

/** About 250 KB of JSON: a few milliseconds to read on a slow core. */
const EVENTS_PER_CHUNK = 1000;

/** Packs a result for the trip to another thread (runs in the worker). */
export function packParseResult(result: ParseFeedResult): PackedParseResult {
  if (!result.ok) return result;
  const chunks: string[] = [];
  for (let i = 0; i < result.events.length; i += EVENTS_PER_CHUNK) {
    chunks.push(JSON.stringify(result.events.slice(i, i + EVENTS_PER_CHUNK)));
  }
  return { ok: true, chunks, unreadable: result.unreadable };
}

/** Reads a packed result back, yielding to the event loop between chunks. */
export async function unpackParseResult(packed: PackedParseResult): Promise<ParseFeedResult> {
  if (!packed.ok) return packed;
  const events: FeedEvent[] = [];
  for (const [i, chunk] of packed.chunks.entries()) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const event of JSON.parse(chunk) as FeedEvent[]) events.push(event);
  }
  return { ok: true, events, unreadable: packed.unreadable };
}
