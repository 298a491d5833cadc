// The month grids of `calsync availability`: weeks from Monday, taken nights in brackets, only the
// weeks asked about, months side by side as the width allows.
import { describe, expect, it } from "vitest";
import { renderMonthGrids } from "../src/cli/stays/month-grid.js";

/** Nights of [from, to), `taken` ones unavailable. */
function nights(from: string, to: string, taken: string[] = []) {
  const list: { date: string; available: boolean }[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t < Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    list.push({ date, available: !taken.includes(date) });
  }
  return list;
}

describe("renderMonthGrids", () => {
  it("draws the weeks asked about under Monday-first headers, taken nights in brackets", () => {
    // 24 February 2031 is a Monday, 1 March a Saturday.
    const text = renderMonthGrids(nights("2031-02-24", "2031-03-06", ["2031-02-27", "2031-03-01", "2031-03-02", "2031-03-03"]));
    expect(text).toBe(
      [
        "February 2031                 March 2031",
        " Mo  Tu  We  Th  Fr  Sa  Su    Mo  Tu  We  Th  Fr  Sa  Su",
        " 24  25  26 [27] 28                                [1] [2]",
        "                               [3]  4   5",
        "",
      ].join("\n"),
    );
  });

  it("stacks months that do not fit side by side", () => {
    const text = renderMonthGrids(nights("2031-02-27", "2031-03-02", ["2031-03-01"]), { width: 40 });
    expect(text).toBe(
      ["February 2031", " Mo  Tu  We  Th  Fr  Sa  Su", "             27  28", "", "March 2031", " Mo  Tu  We  Th  Fr  Sa  Su", "                     [1]", ""].join(
        "\n",
      ),
    );
  });

  it("lays a year out three months to a row on a wide terminal, every night once", () => {
    const year = nights("2031-01-01", "2032-01-01", ["2031-12-31"]);
    const text = renderMonthGrids(year, { width: 100 });
    const titles = text.split("\n").filter((line) => /^[A-Z]/.test(line));
    expect(titles).toEqual([
      "January 2031                  February 2031                 March 2031",
      "April 2031                    May 2031                      June 2031",
      "July 2031                     August 2031                   September 2031",
      "October 2031                  November 2031                 December 2031",
    ]);
    const weeks = text.split("\n").filter((line) => /^[ \d[\]]+$/.test(line) && line.trim() !== "");
    const days = weeks.join(" ").match(/\d{1,2}/g)!;
    expect(days).toHaveLength(365);
    expect(text).toContain("[31]");
    expect(text.match(/\[/g)).toHaveLength(1);
    expect(text.split("\n").every((line) => line === line.trimEnd())).toBe(true);
  });

  it("colours taken nights when given a painter, and draws nothing for no nights", () => {
    const paint = (color: string, text: string) => `<${color}>${text}</${color}>`;
    const text = renderMonthGrids(nights("2031-03-03", "2031-03-05", ["2031-03-04"]), { paint });
    expect(text).toContain("<red> [4]</red>");
    expect(text).toContain("<bold>March 2031</bold>");
    expect(renderMonthGrids([])).toBe("");
  });
});
