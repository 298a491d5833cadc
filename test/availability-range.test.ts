import { describe, expect, it } from "vitest";
import { availabilityRange } from "../src/engine/availability-range.js";

const today = "2027-02-27";
const ask = (from: string | null, to: string | null) => availabilityRange({ from, to }, today);

describe("availabilityRange", () => {
  it("asks from the property's today for a year when nothing is given, and a year from `from` when only it is", () => {
    expect(ask(null, null)).toEqual({ ok: true, from: "2027-02-27", to: "2028-02-27" });
    expect(ask("2027-03-01", null)).toEqual({ ok: true, from: "2027-03-01", to: "2028-02-29" });
    expect(ask(null, "2027-03-01")).toEqual({ ok: true, from: "2027-02-27", to: "2027-03-01" });
  });

  it("takes up to 732 nights and refuses one more, naming `to`", () => {
    expect(ask("2027-01-01", "2029-01-02")).toEqual({ ok: true, from: "2027-01-01", to: "2029-01-02" });
    expect(ask("2027-01-01", "2029-01-03")).toMatchObject({ ok: false, parameter: "to", message: expect.stringContaining("732") });
  });

  it("refuses dates that are not real or not YYYY-MM-DD, and a `to` not after `from`, naming the parameter", () => {
    expect(ask("2027-02-30", null)).toMatchObject({ ok: false, parameter: "from", message: 'from "2027-02-30" is not a real date' });
    expect(ask("27-02-01", null)).toMatchObject({ ok: false, parameter: "from" });
    expect(ask("", null)).toMatchObject({ ok: false, parameter: "from" });
    expect(ask(null, "2027-13-01")).toMatchObject({ ok: false, parameter: "to" });
    expect(ask("2027-03-01", "2027-03-01")).toMatchObject({ ok: false, parameter: "to", message: expect.stringContaining("after from") });
    expect(ask(null, "2027-02-27")).toMatchObject({ ok: false, parameter: "to" });
  });
});
