// A feed's UID as calsync keeps it: as written, or a fixed-length hash when it is too long to index.
import { createHash } from "node:crypto";

/**
 * Longest UID kept as written, in UTF-16 units: 600 of them take at most 2400 bytes, under PostgreSQL's
 * 2704-byte limit on a (calendar, UID) index row. Real channels' UIDs are well under 100.
 */
const MAX_UID_LENGTH = 600;

/** Start of the identity of an event whose UID was too long to keep (its hash follows). */
export const LONG_UID_PREFIX = "longuid:";

/** `uid` (already trimmed), or for one over MAX_UID_LENGTH the same hash every time it is read. */
export function keptUid(uid: string): string {
  return uid.length <= MAX_UID_LENGTH ? uid : `${LONG_UID_PREFIX}${createHash("sha256").update(uid).digest("hex")}`;
}
