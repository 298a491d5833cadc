// Reads the documentation the way the docs test checks it: the README and every guide under docs/, their
// fenced code blocks, `calsync …` lines in shell form, and relative links with GitHub's heading anchors.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** README.md and docs/*.md, as paths relative to the repository. */
export function docFiles(): string[] {
  const guides = readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md"));
  return ["README.md", ...guides.sort().map((name) => `docs/${name}`)];
}

/** One fenced code block: its language, the rest of its info string (`nocheck`), and where it starts. */
export interface DocBlock {
  file: string;
  line: number;
  lang: string;
  info: string;
  code: string;
}

/** Every fenced block of a file, indented ones (inside list items) included, with the indent removed. */
export function codeBlocks(file: string): DocBlock[] {
  const lines = readFileSync(path.join(root, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^ *```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(Math.min(indent, lines[j]!.search(/\S|$/))));
    blocks.push({ file, line: i + 1, lang: open[2]!, info: open[3]!.trim(), code: body.join("\n") + "\n" });
    i = j;
  }
  return blocks;
}

/** Splits a shell line into words, honouring single and double quotes (no expansion). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word = (word ?? "") + char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Cuts a line at a `#` comment outside quotes, and splits it at `&&`, `||`, `;` and ` | ` outside quotes and brackets. */
function segments(line: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      current += char;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === "[") depth++;
    else if (char === "]") depth--;
    else if (char === "#" && (i === 0 || /\s/.test(line[i - 1]!))) break;
    else if (depth === 0 && (line.startsWith("&&", i) || line.startsWith("||", i))) {
      parts.push(current);
      current = "";
      i++;
      continue;
    } else if (depth === 0 && (char === ";" || (char === "|" && line[i - 1] === " " && line[i + 1] === " "))) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** A `calsync` invocation found in a block: the words after `calsync`, brackets of a synopsis removed. */
export interface CliLine {
  file: string;
  line: number;
  text: string;
  words: string[];
}

/**
 * The `calsync …` (or `npx calsync …`) invocations of a shell block, or of a synopsis block (no language),
 * where `owner add NAME | owner list` also names `owner list`. Leading `$ ` and `VAR=value` are dropped;
 * a line ending in `\` continues on the next.
 */
export function cliLines(block: DocBlock, commands: ReadonlySet<string>): CliLine[] {
  const found: CliLine[] = [];
  const lines = block.code.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i]!;
    while (text.endsWith("\\") && i + 1 < lines.length) text = text.slice(0, -1) + " " + lines[++i]!;
    for (const segment of segments(text.replace(/^\s*\$ /, ""))) {
      const words = shellWords(segment.replace(/[[\]]/g, " "));
      while (words[0] !== undefined && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words.shift();
      if (words[0] === "npx") words.shift();
      if (words[0] === "calsync") words.shift();
      else if (block.lang !== "" || !commands.has(words[0] ?? "")) continue;
      found.push({ file: block.file, line: block.line + 1 + start, text: segment, words });
    }
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a Markdown file's headings make (a repeated heading gets -1, -2, … as on GitHub). */
export function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(path.join(root, file), "utf8").split("\n")) {
    if (/^ *```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Relative links and images of a file (outside code blocks): the target as written and its line. */
export function relativeLinks(file: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (/^ *```/.test(line)) fenced = !fenced;
      if (fenced) return;
      for (const match of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z]+:/.test(match[1]!)) links.push({ target: match[1]!, line: index + 1 });
      }
    });
  return links;
}

/** `calsync …` code spans of a file's prose (outside fenced blocks), e.g. `calsync property feed prp_… --rotate`. */
export function inlineCliLines(file: string): CliLine[] {
  const found: CliLine[] = [];
  const lines = readFileSync(path.join(root, file), "utf8").split("\n");
  let fenced = false;
  const prose = lines.map((line) => {
    if (/^ *```/.test(line)) fenced = !fenced;
    return fenced || /^ *```/.test(line) ? "" : line;
  });
  const text = prose.join("\n");
  for (const match of text.matchAll(/`(?:npx )?calsync ([^`]+)`/g)) {
    const line = text.slice(0, match.index).split("\n").length;
    found.push({ file, line, text: match[0], words: shellWords(match[1]!.replace(/[[\]]/g, " ")) });
  }
  return found;
}
