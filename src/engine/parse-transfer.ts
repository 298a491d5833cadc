// How a parse result crosses back from a worker thread. A structured clone of 20,000 events costs the
// receiving thread 130–440 ms in one piece (measured); here the worker writes the events as UTF-8 JSON into
// one buffer, which crosses as one copy of its bytes, cut into chunks that the receiving thread reads one
// per turn of its event loop, so no single step holds a server for long.
import type { FeedReading } from "./feed-reading.js";
import type { FeedEvent } from "./model.js";
import type { ParseFeedResult } from "./parse-feed.js";
import { nextTurn } from "./slices.js";
import type { UnreadableEvent } from "./unreadable-events.js";

/** A parse result as a worker sends it: the events' JSON, chunk `i` ending at byte `ends[i]`. */
export type PackedParseResult =
  | { ok: true; json: Uint8Array; ends: number[]; unreadable: UnreadableEvent[] }
  | Extract<ParseFeedResult, { ok: false }>;

/** A body's reading as a worker sends it. */
export type PackedReading =
  | Extract<FeedReading, { unchanged: true }>
  | (Omit<Extract<FeedReading, { unchanged: false }>, "parsed"> & { parsed: PackedParseResult });

/** About 250 KB of JSON: a few milliseconds to read on a slow core. */
const EVENTS_PER_CHUNK = 1000;

/** Packs a result for the trip to another thread (runs in the worker). */
export function packParseResult(result: ParseFeedResult): PackedParseResult {
  if (!result.ok) return result;
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  const ends: number[] = [];
  let size = 0;
  for (let i = 0; i < result.events.length; i += EVENTS_PER_CHUNK) {
    const part = encoder.encode(JSON.stringify(result.events.slice(i, i + EVENTS_PER_CHUNK)));
    parts.push(part);
    ends.push((size += part.length));
  }
  const json = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    json.set(part, at);
    at += part.length;
  }
  return { ok: true, json, ends, unreadable: result.unreadable };
}

/** Packs a reading (runs in the worker). */
export function packReading(reading: FeedReading): PackedReading {
  return reading.unchanged ? reading : { ...reading, parsed: packParseResult(reading.parsed) };
}

/** Reads a packed result back, yielding to the event loop between chunks. */
export async function unpackParseResult(packed: PackedParseResult): Promise<ParseFeedResult> {
  if (!packed.ok) return packed;
  const decoder = new TextDecoder();
  const events: FeedEvent[] = [];
  let start = 0;
  for (const [i, end] of packed.ends.entries()) {
    if (i > 0) await nextTurn();
    for (const event of JSON.parse(decoder.decode(packed.json.subarray(start, end))) as FeedEvent[]) events.push(event);
    start = end;
  }
  return { ok: true, events, unreadable: packed.unreadable };
}

/** Reads a packed reading back (see unpackParseResult). */
export async function unpackReading(packed: PackedReading): Promise<FeedReading> {
  return packed.unchanged ? packed : { ...packed, parsed: await unpackParseResult(packed.parsed) };
}
