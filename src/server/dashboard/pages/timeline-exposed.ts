// The timeline's shading of exposed nights (CONTRACT §17): a row per channel that may still sell nights taken
// elsewhere, each run of them a hatched bar saying so in words (never colour alone).
import { channelName, nightRangesWords, nightRuns } from "../../../channel-words.js";
import { channelsOf } from "../../../resources/channels.js";
import type { Property } from "../../../store/types.js";
import type { DashboardContext } from "../context.js";
import { html, type SafeHtml } from "../html.js";

/** One channel's row: its label, its runs of exposed nights as timeline columns, and how a run reads. */
export interface ExposedRow {
  label: SafeHtml;
  runs: Array<{ column: number; span: number; from: string; to: string }>;
  view: (run: { from: string; to: string }) => SafeHtml;
}

/** The rows of the channels with exposed nights among `days`. */
export async function exposedRows(ctx: DashboardContext, property: Property, days: readonly string[]): Promise<ExposedRow[]> {
  const channels = await channelsOf(ctx.store, property, { feedBase: "", now: ctx.now(), staleAfterMs: ctx.channelStaleAfterMs });
  const column = new Map(days.map((day, i) => [day, i]));
  return channels
    .filter((c) => c.exposedNights.some((n) => column.has(n.date)))
    .map((c) => {
      const name = channelName(c.source);
      const runs = nightRuns(c.exposedNights.map((n) => n.date).filter((d) => column.has(d))).map(([from, to]) => ({
        column: column.get(from)!,
        span: column.get(to)! - column.get(from)! + 1,
        from,
        to,
      }));
      return {
        label: html`<span class="exposed-label">${name} may still sell</span>`,
        runs,
        view: (run) => html`<div class="bar exposed-bar" title="${`${name} may still sell ${nightRangesWords(datesOf(run))}`}"><span class="bar-text">${name} may sell</span><span class="visually-hidden">: ${nightRangesWords(datesOf(run))}</span></div>`,
      };
    });
}

function datesOf(run: { from: string; to: string }): string[] {
  const out: string[] = [];
  for (let d = new Date(`${run.from}T00:00:00Z`); d.toISOString().slice(0, 10) <= run.to; d.setUTCDate(d.getUTCDate() + 1)) out.push(d.toISOString().slice(0, 10));
  return out;
}
