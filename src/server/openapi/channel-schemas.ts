// JSON Schemas of "what each channel has seen" (CONTRACT §17), mirroring src/channel-types.ts; the document names them.
import { calendarSourceSchema, reservationSourceSchema } from "./schemas.js";

const date = { type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" } as const;
const time = { type: "string", format: "date-time" } as const;
const nullable = <const T extends object>(schema: T) => ({ oneOf: [schema, { type: "null" }] }) as const;

export const exposedNightSchema = {
  type: "object",
  description: "A night the channel may still sell: taken now, free in the channel's last read.",
  properties: {
    date,
    reservationId: { type: "string", description: "The reservation that took the night." },
    source: reservationSourceSchema,
    since: { ...time, description: "When calsync first stored that reservation." },
  },
  required: ["date", "reservationId", "source", "since"],
  additionalProperties: false,
} as const;

export const channelSchema = {
  type: "object",
  properties: {
    source: calendarSourceSchema,
    url: { type: ["string", "null"], description: "The link to paste into the channel's import box (the outbound URL with `exclude=source`); null while the feed is switched off." },
    status: { enum: ["never", "stale", "behind", "current"], description: "The first that applies: never read, not read for longer than `--channel-stale-after`, exposed nights, else current." },
    lastReadAt: nullable(time),
    firstReadAt: nullable(time),
    reads7d: { type: "integer", minimum: 0, description: "Reads in the last 7 days." },
    usualIntervalSeconds: { type: ["integer", "null"], minimum: 0, description: "The median gap between reads over 7 days; null below 3 reads." },
    expectedBy: { ...nullable(time), description: "`lastReadAt` + the usual interval." },
    userAgent: { type: ["string", "null"], maxLength: 200, description: "The last read's User-Agent." },
    exposedNights: { type: "array", items: exposedNightSchema },
    freedNights: { type: "array", items: date, description: "Nights served as taken at the last read that are free now." },
  },
  required: ["source", "url", "status", "lastReadAt", "firstReadAt", "reads7d", "usualIntervalSeconds", "expectedBy", "userAgent", "exposedNights", "freedNights"],
  additionalProperties: false,
} as const;

export const channelListSchema = {
  type: "object",
  properties: { data: { type: "array", items: channelSchema } },
  required: ["data"],
  additionalProperties: false,
} as const;

/** The channel schemas under their `components.schemas` names. */
export const CHANNEL_SCHEMAS = { Channel: channelSchema, ChannelList: channelListSchema, ExposedNight: exposedNightSchema } as const;
