// Where each private feed's secret lives (CONTRACT §18), for both dialects' statements.
import type { PrivateFeed } from "./types.js";

/** The table and column of each private feed's secret (names from this table only, never from input). */
export const FEED_SECRET_COLUMNS: Record<PrivateFeed, { table: "properties" | "owners"; column: "cleaning_token" | "calendar_token" }> = {
  "property-cleaning": { table: "properties", column: "cleaning_token" },
  "owner-cleaning": { table: "owners", column: "cleaning_token" },
  "owner-calendar": { table: "owners", column: "calendar_token" },
};

/** Length of a private feed's secret: 32 base62 characters, over 190 bits, like the outbound feed's. */
export const FEED_SECRET_LENGTH = 32;
