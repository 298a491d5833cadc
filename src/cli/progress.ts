// One self-rewriting line on stderr while feeds are fetched; silent unless stderr is a terminal.
import type { SyncProgress } from "../engine/sync.js";
import type { OutputStream } from "./context.js";
import { cellText } from "./terminal-text.js";

/** The progress line of one sync run. */
export interface ProgressLine {
  /** False when the stream is not a terminal: then every call prints nothing. */
  readonly visible: boolean;
  /** Shows that `total` calendars are being fetched. */
  start(total: number): void;
  /** Records one finished calendar (pass as syncOwner's `onProgress`). */
  update(progress: SyncProgress): void;
  /** Erases the line, so the report starts on a clean one. */
  stop(): void;
}

const CLEAR_LINE = "\r\x1b[2K";

/** A progress line on `stream`, or one that prints nothing when `stream` is not a terminal (logs, pipes, CI). */
export function createProgressLine(stream: OutputStream): ProgressLine {
  if (!stream.isTTY) return { visible: false, start() {}, update() {}, stop() {} };
  let shown = false;
  const show = (text: string) => {
    // A line longer than the terminal wraps, and `\r` would then only rewrite its last part.
    const columns = (stream as { columns?: number }).columns || 80;
    // Property names are the owners' own words: one line, no control characters.
    const line = cellText(text);
    stream.write(CLEAR_LINE + (line.length >= columns ? `${line.slice(0, columns - 2)}…` : line));
    shown = true;
  };
  return {
    visible: true,
    start(total) {
      if (total > 0) show(`Fetching ${total} calendar feed${total === 1 ? "" : "s"}…`);
    },
    update(progress) {
      const mark = progress.ok ? "✔" : "✖";
      show(`Synced ${progress.done}/${progress.total} · ${mark} ${progress.propertyName} (${progress.source})`);
    },
    stop() {
      if (shown) stream.write(CLEAR_LINE);
      shown = false;
    },
  };
}
