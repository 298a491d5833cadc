// One table of per-channel rules: which hosts a channel serves feeds from, how its SUMMARY tells a
// guest booking from an owner block, and what details its events carry. Add a channel here only.
import type { CalendarSource } from "../types.js";
import type { ReservationDetails, ReservationKind } from "./model.js";

interface ChannelRule {
  source: CalendarSource;
  /** Matches a lower-case host name. */
  host: (host: string) => boolean;
  /** Checked first: summaries that are bookings even though they read like blocks. */
  bookings?: RegExp[];
  /** Summaries that are owner blocks on this channel (besides the generic ones). */
  blocks?: RegExp[];
  /** Kind of an event no pattern decides. */
  otherwise: ReservationKind;
  /** Channel-specific details taken from SUMMARY and DESCRIPTION. */
  details?: (summary: string, description: string) => ReservationDetails;
}

/** Summaries that mean "the owner closed these nights" on every channel. */
const GENERIC_BLOCKS = [
  /\bnot available\b/i,
  /\bunavailable\b/i,
  /\bblocked\b/i,
  /\bclosed\b/i,
  /\bowner block\b/i,
  /^owner(\s+(stay|use|hold|time))?$/i,
];

/** `example.com` and any of its subdomains. */
const domain = (name: string) => (host: string) => host === name || host.endsWith(`.${name}`);

/** A brand under any public suffix: `airbnb.com`, `www.airbnb.co.uk`, `airbnb.com.au`. */
const brand = (name: string) => (host: string) => {
  const labels = host.split(".");
  const at = labels.lastIndexOf(name);
  const suffix = labels.slice(at + 1);
  return at >= 0 && suffix.length >= 1 && suffix.length <= 2 && suffix.every((label) => label.length <= 3);
};

const any =
  (...tests: Array<(host: string) => boolean>) =>
  (host: string) =>
    tests.some((test) => test(host));

const CHANNELS: ChannelRule[] = [
  {
    source: "airbnb",
    host: brand("airbnb"),
    // "Reserved" is a guest stay; "Airbnb (Not available)" is a block or Airbnb's rolling window
    // (advance notice, booking horizon). Older exports named the guest: "Jane Doe (HMABC12345)".
    bookings: [/^reserved\b/i, /\(HM[A-Z0-9]{6,}\)$/],
    otherwise: "booking",
    details: airbnbDetails,
  },
  {
    source: "booking",
    host: domain("booking.com"),
    // Booking.com exports every sold or closed night as "CLOSED - Not available" and cannot tell them
    // apart; most of them are sold nights, so they count as bookings (a real block looks the same).
    // Older exports wrote "CLOSED - <guest name>" for a sold stay.
    bookings: [/^closed\b/i],
    otherwise: "booking",
    details: (summary) => guestAfter(/^closed\s*[-–:]\s*(.+)$/i, summary),
  },
  {
    source: "vrbo",
    host: any(
      domain("vrbo.com"),
      brand("homeaway"),
      domain("abritel.fr"),
      domain("fewo-direkt.de"),
      domain("stayz.com.au"),
      domain("bookabach.co.nz"),
    ),
    bookings: [/^reserved\b/i],
    otherwise: "booking",
    // Vrbo/HomeAway put the guest in the summary: "Reserved - Jane Doe".
    details: (summary) => guestAfter(/^reserved\s*[-–:]\s*(.+)$/i, summary),
  },
  {
    source: "expedia",
    host: any(brand("expedia"), domain("expediapartnercentral.com")),
    bookings: [/^reserved\b/i],
    otherwise: "booking",
  },
  {
    source: "google",
    host: domain("google.com"),
    // A Google calendar is usually the owner's own: a block unless it plainly names a booking.
    bookings: [/\b(reserved|booked|booking|reservation)\b/i],
    otherwise: "block",
  },
  {
    source: "tripadvisor",
    host: any(brand("tripadvisor"), domain("flipkey.com"), domain("holidaylettings.co.uk")),
    otherwise: "booking",
    // "Tripadvisor Booking: Jane Doe"
    details: (summary) => guestAfter(/^tripadvisor[^:]*:\s*(.+)$/i, summary),
  },
  {
    source: "agoda",
    host: brand("agoda"),
    otherwise: "booking",
    // "Agoda Booking 638291745"
    details: (summary) => {
      const code = /\bbooking\s*(?:id\s*)?[#:]?\s*(\d{6,})\b/i.exec(summary)?.[1];
      return code ? { reservationCode: code } : {};
    },
  },
];

const OTHER: ChannelRule = { source: "other", host: () => false, otherwise: "booking" };

function ruleOf(source: CalendarSource): ChannelRule {
  return CHANNELS.find((rule) => rule.source === source) ?? OTHER;
}

/** Detects the channel of a feed URL from its host (`webcal://` accepted); `other` when unknown. Never throws. */
export function detectSource(url: string): CalendarSource {
  const host = hostOf(url);
  if (!host) return "other";
  return CHANNELS.find((rule) => rule.host(host))?.source ?? "other";
}

function hostOf(url: string): string {
  const text = url.trim().replace(/^webcals?:/i, "https:");
  for (const candidate of [text, `https://${text}`]) {
    try {
      const host = new URL(candidate).hostname.toLowerCase().replace(/\.$/, "");
      if (host) return host;
    } catch {
      // not a URL this way; try the next spelling
    }
  }
  return "";
}

/** Decides whether an event is a guest `booking` or an owner `block`, by the channel's rules. */
export function classifyKind(source: CalendarSource, summary: string, description?: string): ReservationKind {
  void description; // no channel needs it yet; kept so a rule can look at it without an API change
  const rule = ruleOf(source);
  const text = summary.trim();
  if (rule.bookings?.some((pattern) => pattern.test(text))) return "booking";
  if ([...GENERIC_BLOCKS, ...(rule.blocks ?? [])].some((pattern) => pattern.test(text))) return "block";
  return rule.otherwise;
}

/** Largest description kept in the details; feeds sometimes put whole e-mails there. */
const MAX_DESCRIPTION = 1000;

/**
 * Extracts what the channel's event tells beyond dates (reservation code and URL, phone digits, guest).
 * `url` is the event's own URL property, used as the reservation URL when the description names none.
 */
export function extractDetails(source: CalendarSource, summary: string, description?: string, url?: string): ReservationDetails {
  const text = (description ?? "").trim();
  const details: ReservationDetails = { ...(ruleOf(source).details?.(summary.trim(), text) ?? {}) };
  const link = url?.trim();
  if (!details.reservationUrl && link && /^https?:\/\//i.test(link)) details.reservationUrl = link.slice(0, MAX_DESCRIPTION);
  if (text) details.description = text.slice(0, MAX_DESCRIPTION);
  return details;
}

/** `{ guestName }` from the first group of `pattern`, unless it is a channel's "not available" wording. */
function guestAfter(pattern: RegExp, summary: string): ReservationDetails {
  const name = pattern.exec(summary)?.[1]?.trim();
  if (!name || GENERIC_BLOCKS.some((block) => block.test(name))) return {};
  return { guestName: name.slice(0, 200) };
}

function airbnbDetails(summary: string, description: string): ReservationDetails {
  const legacy = /^(.+?)\s*\((HM[A-Z0-9]{6,})\)$/.exec(summary);
  const details: ReservationDetails = legacy?.[1] ? { guestName: legacy[1], reservationCode: legacy[2] } : {};
  const url = /Reservation URL:\s*(https?:\/\/\S+)/i.exec(description)?.[1];
  if (url) details.reservationUrl = url;
  const code = /\/details\/([A-Z0-9]{6,})/i.exec(url ?? "")?.[1] ?? /\b(HM[A-Z0-9]{6,})\b/.exec(description)?.[1] ?? details.reservationCode;
  if (code) details.reservationCode = code;
  const phone = /Phone Number \(Last 4 Digits\):\s*(\d{4})\b/i.exec(description)?.[1];
  if (phone) details.phoneLast4 = phone;
  return details;
}
