// Matching channel words in summaries as people write them: any case, with or without accents
// ("Réservée", "RESERVEE", "Reservée"), and only as whole words ("closed" is not in "enclosed").

/** A summary folded for matching: decomposed (NFD), accents stripped, lower case, trimmed. */
export function foldSummary(summary: string): string {
  return summary.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase().trim();
}

/**
 * A pattern matching any of `words` (written folded: lower case, no accents; a space matches any
 * run of spaces) as whole words, anywhere in a folded summary or only at its start.
 */
export function wordsPattern(words: readonly string[], at: "start" | "anywhere"): RegExp {
  const alternatives = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "\\s+")).join("|");
  // \b is ASCII-only in JavaScript; letters and digits of every script bound a word here.
  const before = at === "start" ? "^" : "(?<![\\p{L}\\p{N}])";
  return new RegExp(`${before}(?:${alternatives})(?![\\p{L}\\p{N}])`, "u");
}
