// Summaries and notes come from feeds and API clients and end up on terminals, pages and mails: they are stored
// without control characters (CONTRACT §6, §14), so an ESC or OSC sequence never reaches whoever reads them.

// C0, DEL and C1: ESC starts a terminal sequence, and 0x9B (CSI) and 0x9D (OSC) are its one-byte forms.
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// The same but tab and newline, which a note of several lines keeps.
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One line (a summary): line breaks and tabs become a space, every other control character is dropped. */
export function oneLineText(text: string): string {
  return text.replace(/\r\n|[\t\n\r]/g, " ").replace(ANY_CONTROL, "");
}

/** Text of several lines (a note): CRLF and CR become a newline, tabs and newlines stay, every other control character is dropped. */
export function multiLineText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL_BUT_LINES, "");
}
