// A fetched body as bytes: its fingerprint and its text. Kept apart from the parser, so a run whose bodies
// are unchanged never loads it, and usable on a parse worker, where a server's big bodies are read.
import { createHash } from "node:crypto";

// Bump when parsing or channel rules change, so an upgrade re-reads feeds whose bytes did not change.
// 4: the fingerprint is taken of the bytes as received (decompressed), no longer of the decoded text.
// 5: UNTIL in UTC, exact DURATION hours, case-insensitive names, folds anywhere, feed VTIMEZONEs under IANA names (issue 35).
const RULES_VERSION = 5;

/**
 * Identifies a body as read on `day` (YYYY-MM-DD): recurring events expand relative to today, so an
 * unchanged body is read again once a day and its window rolls forward.
 */
export function fingerprint(bytes: Uint8Array, day: string): string {
  return createHash("sha256").update(`calsync-rules-${RULES_VERSION}\n${day}\n`).update(bytes).digest("hex");
}

const utf8 = new TextDecoder("utf-8");

/** The body's text, as a browser would read a UTF-8 file. */
export function decodeBody(bytes: Uint8Array): string {
  // TextDecoder turns invalid bytes into U+FFFD and, by default, consumes a leading BOM.
  const text = utf8.decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
