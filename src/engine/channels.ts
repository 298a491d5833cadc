// One table of per-channel rules: which hosts a channel serves feeds from, how its SUMMARY tells a
// guest booking from an owner block, and what details its events carry. Add a channel here only.
import type { CalendarSource } from "../types.js";
import type { ReservationDetails, ReservationKind } from "./model.js";
import { foldSummary, wordsPattern } from "./summary-words.js";

interface ChannelRule {
  source: CalendarSource;
  /** Matches a lower-case host name. */
  host: (host: string) => boolean;
  /** Checked first: summaries that are bookings even though they read like blocks (tested folded: see foldSummary). */
  bookings?: RegExp[];
  /** Summaries that are owner blocks on this channel (besides the generic ones; tested folded). */
  blocks?: RegExp[];
  /** Kind of an event no pattern decides. */
  otherwise: ReservationKind;
  /** Channel-specific details taken from SUMMARY (as written, and folded) and DESCRIPTION. */
  details?: (summary: string, description: string, folded: string) => ReservationDetails;
  /** The channel answers an empty calendar with an empty body (no VCALENDAR at all). */
  emptyBodyIsEmptyCalendar?: boolean;
}

// The vocabularies below are written folded (lower case, no accents) and cover the languages of the
// channels' sites: Vrbo's family (abritel.fr, fewo-direkt.de, vrbo.com in Spanish, Italian, Dutch,
// Portuguese) writes "Réservée - Name", "Reserviert", "Indisponible", "Nicht verfügbar".

/** Summaries that mean "the owner closed these nights" on every channel, anywhere in the summary. */
const GENERIC_BLOCKS = [
  wordsPattern(
    [
      ...["not available", "unavailable", "blocked", "closed", "owner block"],
      ...["indisponible", "non disponible", "bloque", "bloquee"], // French
      ...["nicht verfugbar", "gesperrt", "blockiert", "geschlossen", "nicht buchbar"], // German
      ...["no disponible", "bloqueado", "bloqueada", "cerrado"], // Spanish (and Portuguese "bloqueado")
      ...["non disponibile", "bloccato", "bloccata", "chiuso"], // Italian
      ...["niet beschikbaar", "geblokkeerd", "gesloten"], // Dutch
      ...["indisponivel", "nao disponivel", "fechado"], // Portuguese
    ],
    "anywhere",
  ),
  /^owner(\s+(stay|use|hold|time))?$/,
];

/** Summaries that start like "Reserved": guest bookings, whatever the channel's default. */
const GENERIC_BOOKINGS: RegExp = wordsPattern(
  [
    ...["reserved", "booked"],
    ...["reservee", "reserve", "reservees", "reserves"], // French "Réservée", "Réservé"
    ...["reserviert", "gebucht", "belegt"], // German
    ...["reservado", "reservada", "ocupado"], // Spanish and Portuguese
    ...["prenotato", "prenotata", "riservato", "riservata", "occupato"], // Italian
    ...["gereserveerd", "geboekt", "bezet"], // Dutch
  ],
  "start",
);

/** Summaries that start like "Tentative": a booking held but not confirmed ("Provisoire - Sylvie"). */
const TENTATIVE = wordsPattern(
  [
    ...["tentative", "provisional"],
    "provisoire", // French
    ...["vorlaufig", "provisorisch"], // German "Vorläufig"
    ...["provisorio", "provisoria"], // Spanish and Portuguese ("Provisório")
    ...["provvisorio", "provvisoria"], // Italian
    "voorlopig", // Dutch
  ],
  "start",
);

/** Booking.com's "CLOSED - Not available" (and older "CLOSED - <guest>"). */
const BOOKING_CLOSED = /^closed(?![\p{L}\p{N}])/u;

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
    bookings: [/\(hm[a-z0-9]{6,}\)$/],
    otherwise: "booking",
    details: airbnbDetails,
  },
  {
    source: "booking",
    host: domain("booking.com"),
    // Booking.com exports every sold or closed night as "CLOSED - Not available" and cannot tell them
    // apart; most of them are sold nights, so they count as bookings (a real block looks the same).
    // Older exports wrote "CLOSED - <guest name>" for a sold stay.
    bookings: [BOOKING_CLOSED],
    otherwise: "booking",
    details: (summary, _description, folded) => guestAfter([BOOKING_CLOSED], summary, folded),
    // An empty Booking.com calendar is an empty body (HTTP 200, zero bytes), not a broken feed.
    emptyBodyIsEmptyCalendar: true,
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
    otherwise: "booking",
    // Vrbo/HomeAway put the guest in the summary: "Reserved - Jane Doe", "Réservée - Melanie", "Provisoire - Sylvie".
    details: (summary, _description, folded) => guestAfter([GENERIC_BOOKINGS, TENTATIVE], summary, folded),
  },
  {
    source: "expedia",
    host: any(brand("expedia"), domain("expediapartnercentral.com")),
    otherwise: "booking",
  },
  {
    source: "google",
    host: domain("google.com"),
    // A Google calendar is usually the owner's own: a block unless it plainly names a booking.
    bookings: [/\b(reserved|booked|booking|reservation)\b/],
    otherwise: "block",
  },
  {
    source: "tripadvisor",
    host: any(brand("tripadvisor"), domain("flipkey.com"), domain("holidaylettings.co.uk")),
    otherwise: "booking",
    // "Tripadvisor Booking: Jane Doe"
    details: (summary, _description, folded) => guestAfter([/^tripadvisor[^:]*(?=:)/], summary, folded),
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

/** Kind and details of one event by its channel's rules (the summary is folded once for both). */
export function describeEvent(
  source: CalendarSource,
  summary: string,
  description?: string,
  url?: string,
): { kind: ReservationKind; details: ReservationDetails } {
  const rule = ruleOf(source);
  const text = summary.trim();
  const { folded, kind, tentative } = summaryVerdict(rule, text);
  const details = detailsOf(rule, text, folded, (description ?? "").trim(), url);
  if (tentative) details.tentative = true;
  return { kind, details };
}

interface SummaryVerdict {
  folded: string;
  kind: ReservationKind;
  tentative: boolean;
}

/** Verdicts remembered per channel: a feed repeats a few summaries ("Reserved", "Not available") in every event. */
const verdicts = new Map<CalendarSource, Map<string, SummaryVerdict>>();
const MAX_VERDICTS = 1000;

/** The folded summary, its kind and whether it is tentative, by the channel's rules (a pure function of both). */
function summaryVerdict(rule: ChannelRule, summary: string): SummaryVerdict {
  let known = verdicts.get(rule.source);
  if (!known) verdicts.set(rule.source, (known = new Map()));
  let verdict = known.get(summary);
  if (!verdict) {
    const folded = foldSummary(summary);
    const tentative = TENTATIVE.test(folded);
    verdict = { folded, tentative, kind: tentative ? "booking" : kindOf(rule, folded) };
    if (known.size >= MAX_VERDICTS) known.clear();
    known.set(summary, verdict);
  }
  return verdict;
}

/** Decides whether an event is a guest `booking` or an owner `block`, by the channel's rules. */
export function classifyKind(source: CalendarSource, summary: string, description?: string): ReservationKind {
  return describeEvent(source, summary, description).kind;
}

function kindOf(rule: ChannelRule, folded: string): ReservationKind {
  if (rule.bookings?.some((pattern) => pattern.test(folded)) || GENERIC_BOOKINGS.test(folded)) return "booking";
  const blocks = (pattern: RegExp) => pattern.test(folded);
  if (GENERIC_BLOCKS.some(blocks) || rule.blocks?.some(blocks)) return "block";
  return rule.otherwise;
}

/** Whether the channel answers an empty calendar with an empty body (CONTRACT §8: Booking.com does). */
export function emptyBodyIsEmptyCalendar(source: CalendarSource): boolean {
  return ruleOf(source).emptyBodyIsEmptyCalendar === true;
}

/** Largest description kept in the details; feeds sometimes put whole e-mails there. */
const MAX_DESCRIPTION = 1000;

/**
 * Extracts what the channel's event tells beyond dates (reservation code and URL, phone digits, guest).
 * `url` is the event's own URL property, used as the reservation URL when the description names none.
 */
export function extractDetails(source: CalendarSource, summary: string, description?: string, url?: string): ReservationDetails {
  return describeEvent(source, summary, description, url).details;
}

function detailsOf(rule: ChannelRule, summary: string, folded: string, description: string, url?: string): ReservationDetails {
  // Each rule builds a fresh object, so it is ours to fill in.
  const details: ReservationDetails = rule.details?.(summary, description, folded) ?? {};
  const link = url?.trim();
  if (!details.reservationUrl && link && /^https?:\/\//i.test(link)) details.reservationUrl = link.slice(0, MAX_DESCRIPTION);
  if (description) details.description = description.slice(0, MAX_DESCRIPTION);
  return details;
}

const SEPARATORS = /[-–:]/g;

/**
 * `{ guestName }` from what follows a lead word and a separator ("Reserved - Jane Doe", "Réservée – Melanie",
 * "Tripadvisor Booking: Jane"), unless that is a channel's "not available" wording.
 */
function guestAfter(leads: RegExp[], summary: string, folded: string): ReservationDetails {
  const lead = leads.map((pattern) => pattern.exec(folded)).find((match) => match !== null);
  if (!lead || !/^\s*[-–:]/.test(folded.slice(lead[0].length))) return {};
  // Folding keeps every separator, so the n-th one of the folded summary is the n-th as written.
  const before = folded.slice(0, lead[0].length).match(SEPARATORS)?.length ?? 0;
  const separator = [...summary.matchAll(SEPARATORS)][before];
  const name = separator ? summary.slice(separator.index + 1).trim() : "";
  if (!name || GENERIC_BLOCKS.some((block) => block.test(foldSummary(name)))) return {};
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
