// The VTIMEZONE written for an IANA zone (RFC 5545 §3.6.5): every change of offset at its minute, read back by node-ical.
import ical from "node-ical";
import { describe, expect, it } from "vitest";
import { vtimezone } from "../src/engine/vtimezone.js";

describe("vtimezone", () => {
  it("writes Lisbon's changes of 2027 at 01:00 UTC, as wall times on the clock before each", () => {
    const text = vtimezone("Europe/Lisbon", 2027, 2027)!;
    expect(text).toContain("BEGIN:DAYLIGHT\r\nDTSTART:20270328T010000\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0100\r\nEND:DAYLIGHT");
    expect(text).toContain("BEGIN:STANDARD\r\nDTSTART:20271031T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nEND:STANDARD");
  });

  it("gives a zone without changes one observance, and nothing for a zone Intl does not know", () => {
    expect(vtimezone("Asia/Kolkata", 2027, 2027)).toBe("BEGIN:VTIMEZONE\r\nTZID:Asia/Kolkata\r\nBEGIN:STANDARD\r\nDTSTART:20270101T053000\r\nTZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE");
    expect(vtimezone("Mars/Olympus", 2027, 2027)).toBeNull();
  });

  it("is read back by node-ical: a 10:00 event in July in Lisbon is 09:00 UTC", () => {
    const body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN", vtimezone("Europe/Lisbon", 2027, 2027)!, "BEGIN:VEVENT", "UID:u", "DTSTAMP:20270101T000000Z",
      "DTSTART;TZID=Europe/Lisbon:20270713T100000", "DTEND;TZID=Europe/Lisbon:20270713T150000", "END:VEVENT", "END:VCALENDAR"].join("\r\n");
    const event = Object.values(ical.sync.parseICS(body)).find((c) => c?.type === "VEVENT") as { start: Date };
    expect(event.start.toISOString()).toBe("2027-07-13T09:00:00.000Z");
  });
});
