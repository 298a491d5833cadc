// Text for the operator's terminal (CONTRACT §6). Feeds, owners and API clients write the summaries, notes,
// names and error messages the CLI prints; a control character among them (ESC, CSI, OSC, BEL, CR, NUL, C1 …)
// could clear the screen, retitle the window, plant a link (OSC 8) or write the clipboard (OSC 52). Every
// writer of the CLI passes its text through `forTerminal`; `--json` escapes them itself (`jsonText`).
import { randomBytes } from "node:crypto";

/** What a control character is shown as: visible, one column wide, and plainly not the original. */
export const REPLACEMENT = "\uFFFD";

// C0 but tab and newline, DEL, C1. Tab and newline only move the cursor forward; CR can overwrite a line.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// In a table cell a newline or tab would break the columns: they become spaces, the rest are replaced.
const CELL_CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const JSON_UNESCAPED_CONTROL = /[\u007f-\u009f]/g;
const ESC = "\u001b";

/**
 * The CLI's own colour codes travel with this in place of ESC until the text is written, so that they are told
 * apart from an ESC a feed sent: it holds no control character, and nothing outside this process knows it.
 */
const COLOUR_MARK = `\u{F8FF}${randomBytes(8).toString("hex")}`;
const MARKED_CODE = new RegExp(`${COLOUR_MARK}\\[[0-9;]*m`, "g");

/** `text` with every control character but tab and newline replaced; the CLI's own colours stay marked. */
export function plainText(text: string): string {
  return text.replace(CONTROL, REPLACEMENT);
}

/** One table cell's text: newlines and tabs as spaces, every other control character replaced. */
export function cellText(text: string): string {
  return text.replace(CELL_CONTROL, (c) => (c === "\n" || c === "\t" || c === "\r" ? " " : REPLACEMENT));
}

/** Text ready to write to stdout or stderr: foreign control characters replaced, the CLI's own colours turned on. */
export function forTerminal(text: string): string {
  return plainText(text).replaceAll(COLOUR_MARK, ESC);
}

/** Colour codes just made by the CLI's painter (around text already free of control characters), marked as its own. */
export function markColours(painted: string): string {
  return painted.replaceAll(ESC, COLOUR_MARK);
}

/** How many columns `text` takes once written: the CLI's colour codes take none. */
export function visibleLength(text: string): number {
  return text.replace(MARKED_CODE, "").length;
}

/** JSON text whose strings hold DEL and C1 characters too as `\u` escapes (JSON.stringify escapes only C0): the same value, nothing a terminal obeys. */
export function jsonText(json: string): string {
  return json.replace(JSON_UNESCAPED_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
