// The pure channel view (CONTRACT §17): status order, usual interval, exposed and freed nights from what a
// link's last read served against the reservations now.
import { describe, expect, it } from "vitest";
import { channelView, statusOf, usualIntervalSeconds, type ChannelInput, type ChannelReservationInput } from "../src/engine/channel-status.js";

const now = new Date("2026-07-09T12:00:00Z");
const hour = 3_600_000;
const at = (ms: number) => new Date(now.getTime() + ms).toISOString();

function link(overrides: Partial<ChannelInput> = {}): ChannelInput {
  return {
    source: "booking",
    url: "http://x/ical/t.ics?exclude=booking",
    addedAt: at(-100 * hour),
    firstReadAt: at(-6 * hour),
    lastReadAt: at(-2 * hour),
    userAgent: "Booking.com",
    readTimes: [at(-6 * hour), at(-4 * hour), at(-2 * hour)],
    lastServed: [],
    ...overrides,
  };
}

function stay(id: string, source: ChannelReservationInput["source"], arrival: string, departure: string, createdAt = at(-hour)): ChannelReservationInput {
  return { id, source, arrival, departure, kind: "booking", status: "active", echoOf: null, createdAt };
}

const context = (reservations: ChannelReservationInput[]) => ({ reservations, today: "2026-07-09", now, staleAfterMs: 24 * hour });

describe("channelView", () => {
  it("names each night taken since the last read, with the stay that took it; its own channel's stays and past nights are not exposed", () => {
    const view = channelView(
      link({ lastServed: [{ reservationId: "r1", arrival: "2026-07-20", departure: "2026-07-22" }] }),
      context([
        stay("r1", "airbnb", "2026-07-20", "2026-07-22"),
        stay("r2", "airbnb", "2026-07-05", "2026-07-11"),
        stay("r3", "booking", "2026-07-25", "2026-07-27"),
      ]),
    );
    expect(view.status).toBe("behind");
    expect(view.exposedNights).toEqual([
      { date: "2026-07-09", reservationId: "r2", source: "airbnb", since: at(-hour) },
      { date: "2026-07-10", reservationId: "r2", source: "airbnb", since: at(-hour) },
    ]);
    expect(view.freedNights).toEqual([]);
    expect(view.usualIntervalSeconds).toBe(7200);
    expect(view.expectedBy).toBe(at(0));
  });

  it("lists nights served as taken that are free now as freed, and stays current", () => {
    const view = channelView(link({ lastServed: [{ reservationId: "r1", arrival: "2026-07-20", departure: "2026-07-22" }] }), context([]));
    expect(view).toMatchObject({ status: "current", exposedNights: [], freedNights: ["2026-07-20", "2026-07-21"] });
  });

  it("is never while no read came since its calendar was added, whatever came before", () => {
    const view = channelView(link({ addedAt: at(-hour) }), context([stay("r2", "airbnb", "2026-07-10", "2026-07-11")]));
    expect(view).toMatchObject({ status: "never", lastReadAt: null, exposedNights: [] });
  });
});

describe("statusOf and usualIntervalSeconds", () => {
  it("takes the first status that applies: never, stale, behind, current", () => {
    expect(statusOf(null, 3, 0, 10)).toBe("never");
    expect(statusOf(0, 3, 11, 10)).toBe("stale");
    expect(statusOf(0, 3, 10, 10)).toBe("behind");
    expect(statusOf(0, 0, 10, 10)).toBe("current");
  });

  it("is the median gap, null below 3 reads", () => {
    expect(usualIntervalSeconds([0, 1000])).toBeNull();
    expect(usualIntervalSeconds([0, 1000, 11_000, 13_000])).toBe(2);
    // Gaps 1, 1, 2, 10 s: the median 1.5 s, rounded to whole seconds.
    expect(usualIntervalSeconds([0, 2000, 3000, 13_000, 14_000])).toBe(2);
  });
});
