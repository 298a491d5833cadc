// Reading a fetched body: its fingerprint first, and only when that differs from the stored one its
// text and events. The same steps run on the thread that fetched (a CLI sync) or on a parse worker (a
// server), where the bytes arrive without a copy and the event loop that answers requests does none of it.
import { decodeBody, fingerprint } from "./feed-bytes.js";
import type { ParseFeedOptions, ParseFeedResult } from "./parse-feed.js";

/** What a body is read against. */
export interface ReadFeedTask {
  /** The fingerprint stored for the calendar: a body that has it is not parsed. */
  knownHash: string | null;
  /** The sync's day (YYYY-MM-DD), part of the fingerprint (see `fingerprint`). */
  day: string;
  /** How the body is parsed when it changed. */
  parse: ParseFeedOptions;
}

/** What reading a body found. */
export type FeedReading =
  | { unchanged: true; contentHash: string }
  | {
      unchanged: false;
      /** Null when the body could not be read at all (a parse worker that stopped). */
      contentHash: string | null;
      parsed: ParseFeedResult;
      /** When the parse failed: the start of the text, enough to tell a web page (see html-answer.ts). */
      head: string;
    };

/** Reads a body's bytes (`SyncOwnerOptions.read`) and resolves to its reading (a parse pool's never rejects). */
export type ReadFeed = (bytes: Uint8Array, task: ReadFeedTask) => Promise<FeedReading>;

/** Characters of a failed body's text kept for explaining it (looksLikeHtml reads 4,096). */
export const HEAD_CHARS = 4096;

/** Parses a body's text (parseFeed, or a stand-in that loads it first). */
export type ParseText = (text: string, options: ParseFeedOptions) => ParseFeedResult | Promise<ParseFeedResult>;

/**
 * Reads `bytes` on this thread with `parse`. `pause` runs between its long steps (hashing, decoding and
 * parsing a 7 MB body take tens of milliseconds each): on an event loop that answers requests, a turn of it.
 */
export async function readFeedBody(bytes: Uint8Array, task: ReadFeedTask, parse: ParseText, pause?: () => Promise<void>): Promise<FeedReading> {
  await pause?.();
  const contentHash = fingerprint(bytes, task.day);
  if (contentHash === task.knownHash) return { unchanged: true, contentHash };
  await pause?.();
  const text = decodeBody(bytes);
  await pause?.();
  const parsed = await parse(text, task.parse);
  return { unchanged: false, contentHash, parsed, head: parsed.ok ? "" : text.slice(0, HEAD_CHARS) };
}
