// The property page's "On your website" card (CONTRACT §15): the snippet to paste, with this server's
// address and the property's feed token, shown as text (escaped) under the dashboard's own CSP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECURITY_HEADERS } from "../src/server/dashboard/security.js";
import { embedSnippet } from "../src/server/dashboard/pages/embed-snippet.js";
import { versionedEmbedPath } from "../src/server/embed-route.js";
import { BASE, startDashboardFixture, type DashboardFixture } from "./helpers/dashboard-fixture.js";

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
});
afterAll(async () => {
  await fx.close();
});

/** The text of the snippet's <code>, unescaped as a browser shows it. */
function shownSnippet(page: string): string | undefined {
  const escaped = /<code id="embed-snippet">([^<]*)<\/code>/.exec(page)?.[1];
  return escaped
    ?.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&#x27;", "'").replaceAll("&amp;", "&");
}

describe("the website snippet on the property page", () => {
  it("asks for the feed URL first, then shows the snippet with this server's URLs as text, and follows a rotation", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Loft");
    const before = await client.get(`/properties/${property.id}`);
    expect(await before.text()).toContain("Create the feed URL above first");

    await client.post(`/properties/${property.id}/feed`, {});
    const token = (await fx.store.getProperty(property.id))!.feedToken!;
    const response = await client.get(`/properties/${property.id}`);
    expect(response.headers.get("content-security-policy")).toBe(SECURITY_HEADERS["content-security-policy"]);
    const page = await response.text();
    expect(shownSnippet(page)).toBe(embedSnippet(BASE, token));
    expect(embedSnippet(BASE, token)).toBe(
      `<script type="module" src="${BASE}/embed/availability.js"></script>\n` +
        `<calsync-availability src="${BASE}/availability/${token}.json" months="2"></calsync-availability>`,
    );
    // Shown, never run: the page itself holds no such element or script.
    expect(page).not.toContain("<calsync-availability");
    expect(page).not.toContain('<script type="module"');
    expect(page).toContain('data-copy="embed-snippet" hidden');
    expect(page).toContain(`<code>${BASE}${versionedEmbedPath()}</code>`);
    expect((await fx.app.fetch(new Request(`${BASE}/availability/${token}.json`))).status).toBe(200);

    await client.post(`/properties/${property.id}/feed`, { rotate: "1" });
    const rotated = (await fx.store.getProperty(property.id))!.feedToken!;
    expect(shownSnippet(await client.page(`/properties/${property.id}`))).toBe(embedSnippet(BASE, rotated));
    expect((await fx.app.fetch(new Request(`${BASE}/availability/${token}.json`))).status).toBe(404);
  });
});
