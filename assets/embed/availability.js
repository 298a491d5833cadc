// <calsync-availability src="https://…/availability/TOKEN.json" months="2"> (calsync, CONTRACT §15):
// a property's free and booked nights as month tables on the owner's own website. One dependency-free
// ES module, no build step. It must run on pages of any origin under a strict CSP (scripts only from
// calsync, no inline style, Trusted Types): so the DOM is built with createElement/textContent only and
// the styles are one constructable stylesheet adopted by the shadow root. Month and day names come
// from Intl in the page's `lang`; weeks start on that locale's first day.

// The few words Intl cannot give; English for every other language.
const WORDS = {
  en: { available: "available", booked: "booked", past: "past, not available", previous: "Previous month", next: "Next month", loading: "Loading availability…", notFound: "This availability calendar does not exist (any more). The owner's website may use an old link.", unreachable: "The availability calendar cannot be loaded right now. Please try again later." },
  de: { available: "frei", booked: "belegt", past: "vergangen, nicht verfügbar", previous: "Vorheriger Monat", next: "Nächster Monat", loading: "Belegung wird geladen …", notFound: "Diesen Belegungskalender gibt es nicht (mehr). Die Website verwendet vielleicht einen alten Link.", unreachable: "Der Belegungskalender kann gerade nicht geladen werden. Bitte versuchen Sie es später noch einmal." },
  fr: { available: "libre", booked: "réservé", past: "passé, non disponible", previous: "Mois précédent", next: "Mois suivant", loading: "Chargement des disponibilités…", notFound: "Ce calendrier des disponibilités n’existe pas (ou plus).", unreachable: "Le calendrier des disponibilités ne peut pas être chargé pour le moment. Veuillez réessayer plus tard." },
  es: { available: "libre", booked: "reservado", past: "pasado, no disponible", previous: "Mes anterior", next: "Mes siguiente", loading: "Cargando disponibilidad…", notFound: "Este calendario de disponibilidad no existe (o ya no existe).", unreachable: "El calendario de disponibilidad no se puede cargar ahora. Inténtelo de nuevo más tarde." },
  it: { available: "libero", booked: "occupato", past: "passato, non disponibile", previous: "Mese precedente", next: "Mese successivo", loading: "Caricamento delle disponibilità…", notFound: "Questo calendario delle disponibilità non esiste (più).", unreachable: "Il calendario delle disponibilità non può essere caricato ora. Riprova più tardi." },
  nl: { available: "vrij", booked: "bezet", past: "voorbij, niet beschikbaar", previous: "Vorige maand", next: "Volgende maand", loading: "Beschikbaarheid laden…", notFound: "Deze beschikbaarheidskalender bestaat niet (meer).", unreachable: "De beschikbaarheidskalender kan nu niet worden geladen. Probeer het later opnieuw." },
  pt: { available: "livre", booked: "reservado", past: "passado, indisponível", previous: "Mês anterior", next: "Mês seguinte", loading: "A carregar a disponibilidade…", notFound: "Este calendário de disponibilidade não existe (ou já não existe).", unreachable: "Não é possível carregar o calendário de disponibilidade agora. Tente novamente mais tarde." },
};

// Where Intl.Locale has no week info (Firefox, older Safari): CLDR's regions whose weeks start on Sunday
// or Saturday; every other region starts on Monday.
const SUNDAY_REGIONS = new Set("AG AS BD BR BS BT BW BZ CA CN CO DM DO ET GT GU HK HN ID IL IN JM JP KE KH KR LA MH MM MO MT MX MZ NI NP PA PE PH PK PR PT PY SA SG SV TH TT TW UM US VE VI WS YE ZA ZW".split(" "));
const SATURDAY_REGIONS = new Set("AE AF BH DJ DZ EG IQ IR JO KW LY OM QA SD SY".split(" "));

/** Nights asked for at once after the first year. */
const CHUNK_NIGHTS = 365;
const DAY_MS = 86_400_000;

const CSS = `
:host { display: block; font: inherit; color: var(--calsync-color, inherit); }
:host([hidden]), [hidden] { display: none !important; }
* { box-sizing: border-box; }
.calendar { position: relative; }
/* The months sit in a grid of month-wide columns. auto-fit collapses the columns no month fills, so the buttons,
   placed over the whole first row (1 / -1), sit at the two ends of the captions of the months shown there, not
   at the far ends of a wide page; on a phone, a month a row, at the ends of the first month's caption. A month
   is 7 cells and 8 spacings (border-spacing) wide; a month of 5 weeks keeps its cells beside one of 6 (start). */
.months { --calsync-month-width: calc(7 * var(--calsync-cell-size, 2.4em) + 16px); position: relative; display: grid;
  grid-template-columns: repeat(auto-fit, minmax(var(--calsync-month-width), max-content)); justify-content: start; align-items: start; }
.nav { position: absolute; grid-column: 1 / -1; grid-row: 1; inset-inline: 0; top: 0; display: flex; justify-content: space-between; pointer-events: none; }
.nav button { pointer-events: auto; }
caption { line-height: 2.5em; }
button { font: inherit; min-width: 2.5em; min-height: 2.5em; border: 1px solid var(--calsync-border-color, #8c959f);
  border-radius: var(--calsync-radius, 6px); background: var(--calsync-button-background, #fff); color: var(--calsync-button-color, #1f2328); cursor: pointer; }
button:focus-visible, td:focus-visible { outline: 3px solid var(--calsync-focus-color, #0969da); outline-offset: 2px; }
button[aria-disabled="true"] { opacity: .45; cursor: default; }
.months { gap: var(--calsync-gap, 1.5em); }
table { border-collapse: separate; border-spacing: 2px; }
caption { font-weight: 600; padding-bottom: .2em; }
caption::first-letter { text-transform: uppercase; }
th { font-weight: 500; font-size: .8em; color: var(--calsync-weekday-color, #57606a); padding: .2em 0; }
td { position: relative; width: var(--calsync-cell-size, 2.4em); height: var(--calsync-cell-size, 2.4em); text-align: center;
  border-radius: var(--calsync-radius, 6px); font-variant-numeric: tabular-nums; }
td.available { background: var(--calsync-available-background, #dafbe1); color: var(--calsync-available-color, #116329); }
td.booked { background: var(--calsync-booked-background, #ffebe9); color: var(--calsync-booked-color, #82071e); text-decoration: line-through; }
td.past { color: var(--calsync-past-color, #636c76); }
td.today { box-shadow: inset 0 0 0 2px var(--calsync-today-color, #1f2328); }
.legend { display: flex; flex-wrap: wrap; gap: .3em 1.2em; list-style: none; padding: 0; margin: .6em 0 0; font-size: .85em; }
.swatch { display: inline-block; width: 1em; height: 1em; margin-inline-end: .35em; vertical-align: -.15em; border-radius: 3px; }
.swatch.available { background: var(--calsync-available-background, #dafbe1); border: 1px solid var(--calsync-available-color, #116329); }
.swatch.booked { background: var(--calsync-booked-background, #ffebe9); border: 1px solid var(--calsync-booked-color, #82071e); }
.swatch.past { border: 1px solid var(--calsync-past-color, #636c76); }
.message:empty { display: none; }
.sr { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
`;

let sharedSheet;
function styleSheet() {
  if (!sharedSheet) {
    sharedSheet = new CSSStyleSheet();
    sharedSheet.replaceSync(CSS);
  }
  return sharedSheet;
}

/** An element with attributes and children (strings become text nodes, never markup). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined && value !== false) node.setAttribute(name, String(value));
  node.append(...children.flat());
  return node;
}

/** `YYYY-MM-DD` of a UTC midnight. */
const isoDate = (ms) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (date) => Date.parse(`${date}T00:00:00Z`);
/** The first of the month `offset` months after the month of `ms`, as UTC milliseconds. */
const monthStart = (ms, offset = 0) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
};

/** 1 (Monday) … 7 (Sunday): the first day of the week in `locale`. */
function firstDayOfWeek(locale) {
  try {
    const info = typeof locale.getWeekInfo === "function" ? locale.getWeekInfo() : locale.weekInfo;
    if (info && info.firstDay) return info.firstDay;
    const region = locale.maximize().region;
    if (SUNDAY_REGIONS.has(region)) return 7;
    if (SATURDAY_REGIONS.has(region)) return 6;
  } catch {
    // An engine without Intl.Locale.maximize: Monday, the ISO week.
  }
  return 1;
}

/** The page's language for this element: the nearest `lang`, else the browser's, as a valid Intl.Locale. */
function pageLocale(element) {
  const candidates = [element.closest("[lang]")?.getAttribute("lang"), document.documentElement.lang, navigator.language, "en"];
  for (const tag of candidates) {
    try {
      if (tag) return new Intl.Locale(tag);
    } catch {
      // Not a language tag (`lang="x_y"`): try the next.
    }
  }
  return new Intl.Locale("en");
}

export class CalsyncAvailability extends HTMLElement {
  static observedAttributes = ["src", "months"];

  #nights = new Map();
  #today = null;
  #loadedTo = null;
  #start = null;
  #wanted = null;
  #abort = null;
  #busy = false;
  #connected = false;
  #view;

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    if ("adoptedStyleSheets" in root && "replaceSync" in CSSStyleSheet.prototype) root.adoptedStyleSheets = [styleSheet()];
    else root.append(el("style", {}, CSS)); // very old engines; such a page's CSP must allow it
    this.#view = {
      previous: el("button", { type: "button", part: "button previous", class: "previous" }),
      next: el("button", { type: "button", part: "button next", class: "next" }),
      announce: el("span", { class: "sr", "aria-live": "polite" }),
      months: el("div", { part: "months", class: "months" }),
      legend: el("ul", { part: "legend", class: "legend" }),
      message: el("p", { part: "message", class: "message", role: "status" }),
    };
    const { previous, next, announce, months, legend, message } = this.#view;
    this.#view.nav = el("div", { part: "nav", class: "nav", hidden: true }, previous, next);
    months.append(this.#view.nav);
    previous.addEventListener("click", () => this.#move(-1));
    next.addEventListener("click", () => this.#move(1));
    // The buttons live in the months' grid (see CSS): only the tables in it are ever replaced, so a button
    // keeps the keyboard's focus across a change of month.
    root.append(el("div", { part: "calendar", class: "calendar" }, months, announce, legend, message));
  }

  connectedCallback() {
    this.#connected = true;
    this.#reload();
  }

  disconnectedCallback() {
    this.#connected = false;
    this.#abort?.abort();
  }

  // An upgrade reports every attribute before connectedCallback: only later changes load again.
  attributeChangedCallback(_name, before, after) {
    if (before !== after && this.#connected) this.#reload();
  }

  get #monthCount() {
    const count = Number.parseInt(this.getAttribute("months") ?? "", 10);
    return Number.isFinite(count) ? Math.min(12, Math.max(1, count)) : 2;
  }

  get #words() {
    return WORDS[this.#locale.language] ?? WORDS.en;
  }

  get #locale() {
    return pageLocale(this);
  }

  async #reload() {
    this.#nights.clear();
    this.#today = this.#loadedTo = this.#start = this.#wanted = null;
    this.#view.nav.hidden = true;
    this.#showMonths([]);
    this.#view.legend.replaceChildren();
    this.#say(this.#words.loading);
    const first = await this.#fetch();
    if (!first) return;
    this.#today = first.from;
    this.#start = monthStart(dayMs(first.from));
    this.#say("");
    this.#render(false);
  }

  /** Reads nights into the map: the feed's default range (from the property's today), or [from, to). */
  async #fetch(from, to) {
    const src = this.getAttribute("src");
    this.#abort?.abort();
    const abort = (this.#abort = new AbortController());
    let url;
    try {
      url = new URL(src ?? "", document.baseURI);
      if (!src) throw new TypeError("no src");
    } catch {
      this.#fail(this.#words.unreachable);
      return null;
    }
    if (from) url.searchParams.set("from", from);
    if (to) url.searchParams.set("to", to);
    try {
      const response = await fetch(url, { credentials: "omit", signal: abort.signal });
      if (response.status === 404) return this.#fail(this.#words.notFound);
      const body = response.ok ? await response.json() : null;
      if (!body || typeof body.from !== "string" || !Array.isArray(body.nights)) return this.#fail(this.#words.unreachable);
      for (const night of body.nights) this.#nights.set(night.date, night.available === true);
      if (!this.#loadedTo || body.to > this.#loadedTo) this.#loadedTo = body.to;
      return body;
    } catch {
      // A newer request replaced this one: it says what happens next.
      if (!abort.signal.aborted) this.#fail(this.#words.unreachable);
      return null;
    }
  }

  #fail(text) {
    this.#view.nav.hidden = true;
    this.#showMonths([]);
    this.#view.legend.replaceChildren();
    this.#say(text);
    return null;
  }

  #showMonths(tables) {
    for (const table of this.#view.months.querySelectorAll(":scope > table")) table.remove();
    this.#view.months.append(...tables);
  }

  #say(text) {
    this.#view.message.textContent = text;
  }

  // Presses made while the next year loads count: the view goes where the visitor asked once it is there.
  async #move(step) {
    if (this.#start === null) return;
    const first = monthStart(dayMs(this.#today));
    this.#wanted = Math.max(first, monthStart(this.#wanted ?? this.#start, step));
    if (this.#busy) return;
    this.#busy = true;
    while (this.#start !== null && this.#wanted !== null && this.#wanted !== this.#start) {
      const start = this.#wanted;
      const end = isoDate(monthStart(start, this.#monthCount));
      if (end > this.#loadedTo) {
        // A year at a time (the server answers at most 732 nights); the loop asks again if that is not enough.
        const from = this.#loadedTo;
        if (!(await this.#fetch(from, isoDate(dayMs(from) + CHUNK_NIGHTS * DAY_MS)))) break;
        continue;
      }
      this.#start = start;
      this.#render(true);
    }
    this.#busy = false;
  }

  #render(announce) {
    const words = this.#words;
    const locale = this.#locale;
    const { previous, next, legend, nav } = this.#view;
    const atFirst = this.#start <= monthStart(dayMs(this.#today));
    previous.setAttribute("aria-label", words.previous);
    previous.setAttribute("aria-disabled", String(atFirst));
    previous.replaceChildren(el("span", { "aria-hidden": "true" }, "‹"));
    next.setAttribute("aria-label", words.next);
    next.replaceChildren(el("span", { "aria-hidden": "true" }, "›"));
    nav.hidden = false;

    const captions = [];
    const tables = [];
    for (let i = 0; i < this.#monthCount; i++) {
      const start = monthStart(this.#start, i);
      captions.push(new Intl.DateTimeFormat(locale, { month: "long", year: "numeric", timeZone: "UTC" }).format(start));
      tables.push(this.#month(start, captions[i], locale, words));
    }
    this.#showMonths(tables);
    legend.replaceChildren(
      el("li", { part: "legend-item" }, el("span", { class: "swatch available", part: "swatch available" }), words.available),
      el("li", { part: "legend-item" }, el("span", { class: "swatch booked", part: "swatch booked" }), words.booked),
      el("li", { part: "legend-item" }, el("span", { class: "swatch past", part: "swatch past" }), words.past),
    );
    if (announce) this.#view.announce.textContent = captions.join(" – ");
  }

  /** One month's `<table>`: a row per week, weeks starting on the locale's first day. */
  #month(start, caption, locale, words) {
    const firstDay = firstDayOfWeek(locale);
    const weekday = (format) => new Intl.DateTimeFormat(locale, { weekday: format, timeZone: "UTC" });
    // 1 January 2024 was a Monday: day n of the ISO week is 2024-01-0n.
    const heads = [];
    for (let i = 0; i < 7; i++) {
      const iso = ((firstDay - 1 + i) % 7) + 1;
      const date = Date.UTC(2024, 0, iso);
      heads.push(el("th", { scope: "col", part: "weekday", abbr: weekday("long").format(date) }, weekday("short").format(date)));
    }
    const dayName = new Intl.DateTimeFormat(locale, { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
    const dayNumber = new Intl.DateTimeFormat(locale, { day: "numeric", timeZone: "UTC" });
    const rows = [];
    const isoWeekday = (ms) => ((new Date(ms).getUTCDay() + 6) % 7) + 1;
    const cells = Array.from({ length: (isoWeekday(start) - firstDay + 7) % 7 }, () => el("td", { part: "blank" }));
    const end = monthStart(start, 1);
    for (let ms = start; ms < end; ms += DAY_MS) {
      const date = isoDate(ms);
      const state = date < this.#today ? "past" : this.#nights.get(date) === true ? "available" : "booked";
      const today = date === this.#today;
      cells.push(
        el("td", { class: `${state}${today ? " today" : ""}`, part: `day ${state}${today ? " today" : ""}`, "aria-current": today ? "date" : undefined, "data-date": date },
          el("span", { "aria-hidden": "true" }, dayNumber.format(ms)),
          el("span", { class: "sr" }, `${dayName.format(ms)}: ${words[state]}`)),
      );
      if (cells.length === 7) rows.push(el("tr", {}, cells.splice(0)));
    }
    if (cells.length > 0) rows.push(el("tr", {}, cells, Array.from({ length: 7 - cells.length }, () => el("td", { part: "blank" }))));
    return el("table", { part: "month" }, el("caption", { part: "caption" }, caption), el("thead", {}, el("tr", {}, heads)), el("tbody", {}, rows));
  }
}

if (!customElements.get("calsync-availability")) customElements.define("calsync-availability", CalsyncAvailability);
