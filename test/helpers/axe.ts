// axe-core inside a dashboard page (CONTRACT §9 accessibility): its source is injected as a script tag,
// which the dashboard's CSP would refuse, so pages checked here come from a context with bypassCSP.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One rule broken on a page, with where. */
export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** The serious and critical violations axe-core finds on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.addScriptTag({ content: axeSource });
  const results = (await page.evaluate("window.axe.run(document, { resultTypes: ['violations'] })")) as {
    violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
  };
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ rule: v.id, impact: v.impact!, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}
