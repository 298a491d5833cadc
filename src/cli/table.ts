// Plain-text tables and colours for people; scripts use --json instead.
import type { ColorName } from "consola/utils";
import { createRequire } from "node:module";
import type { OutputStream } from "./context.js";
import { cellText, markColours, plainText, visibleLength } from "./terminal-text.js";

// consola's colours, loaded on first use (only for a terminal): loading them costs `calsync --help` a fifth of its start-up.
const require = createRequire(import.meta.url);
let utils: typeof import("consola/utils") | undefined;
const consolaUtils = () => (utils ??= require("consola/utils") as typeof import("consola/utils"));

/** Colours a piece of text, or leaves it as it is when colours are off. */
export type Paint = (color: ColorName, text: string) => string;

/**
 * Colours only for a terminal, and never when `NO_COLOR` is set (https://no-color.org). The codes are marked as
 * the CLI's own (terminal-text.ts), so that the writer turns them on while it replaces any ESC a feed sent.
 */
export function painterFor(stream: OutputStream, env: Record<string, string | undefined>): Paint {
  const enabled = Boolean(stream.isTTY) && !env.NO_COLOR;
  return enabled ? (color, text) => markColours(consolaUtils().colors[color](plainText(text))) : (_color, text) => text;
}

/** A column of `formatTable`; numbers read best right-aligned. */
export interface Column {
  header: string;
  align?: "left" | "right";
}

/** Lays rows out in aligned columns under a header, two spaces apart, with no trailing spaces; a cell is one line. */
export function formatTable(columns: Column[], rawRows: string[][], paint: Paint): string {
  const rows = rawRows.map((row) => row.map(cellText));
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => visibleLength(row[index] ?? ""))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, index) => {
        const pad = " ".repeat(Math.max(0, (widths[index] ?? 0) - visibleLength(cell)));
        if (columns[index]?.align === "right") return pad + cell;
        return index === cells.length - 1 ? cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  const header = line(columns.map((column) => column.header));
  return [paint("bold", header), ...rows.map(line)].join("\n") + "\n";
}

/** A stored ISO time as people read it: local `YYYY-MM-DD HH:MM`, or `-` when absent. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "-";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}
