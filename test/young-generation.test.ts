// `calsync serve` keeps V8's young generation small (issue 40's memory), unless node was given a young-generation
// flag of its own, on its command line or in NODE_OPTIONS.
import { describe, expect, it } from "vitest";
import { youngGenerationGiven } from "../src/cli/young-generation.js";

describe("a young-generation flag given to node", () => {
  it("is found on the command line and in NODE_OPTIONS, in either spelling", () => {
    expect(youngGenerationGiven(["--max-semi-space-size=16"])).toBe(true);
    expect(youngGenerationGiven([], "--enable-source-maps --max_semi_space_size=8")).toBe(true);
    expect(youngGenerationGiven(["--min-semi-space-size", "2"])).toBe(true);
    expect(youngGenerationGiven([], "--semi-space-growth-factor=4")).toBe(true);
  });

  it("is not read into other flags", () => {
    expect(youngGenerationGiven([])).toBe(false);
    expect(youngGenerationGiven(["--cpu-prof", "--max-old-space-size=512"], "--enable-source-maps")).toBe(false);
    expect(youngGenerationGiven([], "--max-semi-space-sizes=1")).toBe(false);
  });
});
