// serve's mail settings (CONTRACT §16) as values: what counts as an SMTP URL and a From, and the URL as logs show it.
import { describe, expect, it } from "vitest";
import { checkMailFrom, checkSmtpUrl, fromDomain, maskSmtpUrl } from "../src/server/mail/config.js";
import { renderMail } from "../src/server/mail/templates.js";

describe("mail settings", () => {
  it("takes smtp:// and smtps:// URLs with a host, and nothing else", () => {
    expect(checkSmtpUrl("smtp://u:p@mail.example:587")).toEqual({ ok: true, value: "smtp://u:p@mail.example:587" });
    expect(checkSmtpUrl(" smtps://mail.example ").ok).toBe(true);
    for (const bad of ["mail.example:587", "http://mail.example", "smtp://", "smtp//u:p@host", ""]) expect(checkSmtpUrl(bad).ok).toBe(false);
  });

  it("takes one address as From, with or without a name", () => {
    expect(checkMailFrom('"calsync" <calsync@example.com>').ok).toBe(true);
    expect(checkMailFrom("calsync@example.com").ok).toBe(true);
    for (const bad of ["calsync", "a@example.com, b@example.com", "", "Name <>"]) expect(checkMailFrom(bad).ok).toBe(false);
    expect(fromDomain("calsync <calsync@mail.example.com>")).toBe("mail.example.com");
  });

  it("masks the password (and any query) of the SMTP URL", () => {
    expect(maskSmtpUrl("smtp://calsync:hunter2@mail.example:587")).toBe("smtp://calsync:***@mail.example:587");
    expect(maskSmtpUrl("smtps://mail.example/?pass=hunter2")).not.toContain("hunter2");
  });
});

describe("mail templates", () => {
  it("escape feed text and property names in HTML, and keep a header on one line", () => {
    const mail = renderMail(
      "calendar_failed",
      {
        type: "calendar.failed",
        timestamp: "2027-03-01T10:00:00.000Z",
        data: {
          calendar: { id: "cal_1", propertyId: "prp_1", propertyName: 'Loft\r\nBcc: x@evil.example <script>alert(1)</script>', source: "other" },
          consecutiveFailures: 3,
          failingSince: "2027-03-01T08:00:00.000Z",
          error: { code: "parse_error", message: '<img src=x onerror="alert(1)">' },
        },
      },
      { ownerName: "Ann", baseUrl: "https://cal.example.com" },
    );
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).not.toContain("<img");
    expect(mail.html).toContain("&lt;script&gt;");
    expect(mail.html).toContain('href="https://cal.example.com/properties/prp_1"');
    expect(mail.text).toContain("since 2027-03-01 08:00 UTC");
  });

  const conflict = (sources: Array<"airbnb" | "booking" | "direct">) =>
    renderMail(
      "booking_conflict",
      {
        type: "booking.conflict",
        timestamp: "2027-03-01T10:00:00.000Z",
        data: { propertyId: "prp_1", propertyName: "Loft", from: "2027-05-02", to: "2027-05-06", reservations: sources.map((source, i) => ({ id: `rsv_${i}`, source, summary: "Reserved" })) },
      },
      { ownerName: "Ann", baseUrl: "https://cal.example.com" },
    );

  it("says a double booking with a direct stay is cancelled in calsync, the channel's on its channel", () => {
    const mail = conflict(["airbnb", "direct"]);
    expect(mail.text).toContain("4 nights: Sun 2 May 2027 to Thu 6 May 2027 (check-out), on airbnb and a direct stay in calsync");
    expect(mail.text).toContain("Cancel the airbnb booking on that channel, or the direct stay in calsync (the timeline links to it), or move the guest.");
    expect(mail.text).not.toContain("Cancel one of the bookings on its channel");
    expect(mail.html).toContain("or the direct stay in calsync");
    // Between channels only, the channels are where to cancel.
    expect(conflict(["airbnb", "booking"]).text).toContain("on airbnb, booking\n\nCancel one of the bookings on its channel, or move the guest.");
  });

  it("keeps a double booking's nights and channels in one line of the HTML mail, not two bullets", () => {
    const { html } = conflict(["airbnb", "booking"]);
    expect(html).not.toContain("<li>");
    expect(html).toContain("<p>4 nights: Sun 2 May 2027 to Thu 6 May 2027 (check-out), on airbnb, booking</p>");
  });
});
