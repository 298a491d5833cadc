// The security rules of CONTRACT §9 over the real h3 app and a real store: headers and CSP, CSRF tokens
// and the Origin check on every form, another owner's ids, escaping of feed text and names, and the
// paths that keep their JSON answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import type { Owner } from "../src/store/types.js";
import type { PageClient } from "./helpers/dashboard-client.js";
import { BASE, startDashboardFixture, type DashboardFixture } from "./helpers/dashboard-fixture.js";
import { buildIcs, day } from "./helpers/ics.js";

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
});
afterAll(async () => {
  await fx.close();
});

/** An owner with a property, a calendar, a token and a feed token, and the ids of all of them. */
async function ownerWithEverything(name: string) {
  const { owner, client } = await fx.signedIn(name);
  const property = await fx.store.createProperty(owner.id, `${name}'s Loft`);
  const calendar = await fx.store.createCalendar({
    propertyId: property.id,
    source: "airbnb",
    url: fx.feeds.url(`/${owner.id}/airbnb.ics`, { body: buildIcs([{ uid: "a", start: day(3), end: day(6), summary: "Reserved" }]) }),
  });
  const token = await fx.store.createToken({ ownerId: owner.id, name: "t", prefix: "cs_abcd", hash: `${owner.id}-hash`, expiresAt: null });
  await fx.store.propertyFeedToken(property.id);
  const webhook = await fx.store.createWebhookEndpoint({ ownerId: owner.id, url: "https://hooks.example.com/in", events: ["*"], secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0" });
  return { owner, client, property, calendar, token, webhook };
}

describe("security headers", () => {
  it("sends a CSP without inline scripts, frame denial and a same-origin Referrer-Policy on pages, API answers and errors", async () => {
    const { client } = await fx.signedIn();
    const answers = [
      await client.get("/properties"),
      await fx.anonymous().get("/sign-in"),
      await client.get("/no-such-page"),
      await client.get("/assets/dashboard.js"),
      await fx.app.fetch(new Request(`${BASE}/api/v1/calendars/sync`, { method: "POST" })),
      await fx.app.fetch(new Request(`${BASE}/healthz`)),
    ];
    for (const response of answers) {
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("serves pages with no inline script, event handler or style attribute, and never caches them", async () => {
    const { client, property } = await ownerWithEverything("Ina");
    const pages = ["/properties", `/properties/${property.id}`, `/properties/${property.id}/timeline`, "/settings/tokens", "/settings/profile", "/webhooks"];
    for (const path of pages) {
      const response = await client.get(path);
      expect(response.headers.get("cache-control"), path).toBe("no-store");
      const html = await response.text();
      expect(html, path).not.toMatch(/<script(?![^>]*\ssrc=)/);
      expect(html, path).not.toMatch(/\son[a-z]+=/i);
      expect(html, path).not.toMatch(/\sstyle=/i);
      expect(html, path).toContain('<script src="/assets/dashboard.js" defer></script>');
    }
  });
});

describe("forms from elsewhere", () => {
  let ann: Awaited<ReturnType<typeof ownerWithEverything>>;
  beforeAll(async () => {
    ann = await ownerWithEverything("Ann");
    await ann.client.page("/settings/tokens");
  });
  const tokenCount = async () => (await fx.store.listTokens(ann.owner.id)).length;

  it("refuses a form without the CSRF token, or with another session's token, and creates nothing", async () => {
    const before = await tokenCount();
    const missing = await ann.client.post("/settings/tokens", { name: "evil", expiresInDays: "" }, { csrf: null });
    const { client: mallory } = await fx.signedIn("Mallory");
    await mallory.page("/settings/tokens");
    const foreign = await ann.client.post("/settings/tokens", { name: "evil", expiresInDays: "" }, { csrf: mallory.csrf! });
    for (const response of [missing, foreign]) {
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("came from another site");
    }
    expect(await tokenCount()).toBe(before);
  });

  it("refuses a foreign Origin even with a valid token: another port of the same host is another origin", async () => {
    const before = await tokenCount();
    for (const origin of ["http://calsync.test:8788", "https://calsync.test", "http://evil.test", "null"]) {
      const response = await ann.client.post("/settings/tokens", { name: "evil", expiresInDays: "" }, { origin });
      expect(response.status, origin).toBe(403);
    }
    const referer = await ann.client.post("/settings/tokens", { name: "evil", expiresInDays: "" }, { origin: null, headers: { referer: "http://calsync.test:9999/attack.html" } });
    expect(referer.status).toBe(403);
    expect(await tokenCount()).toBe(before);
  });

  it("accepts the token from a request without Origin or Referer (the token alone proves the page was ours)", async () => {
    const before = await tokenCount();
    const response = await ann.client.post("/settings/tokens", { name: "plain", expiresInDays: "" }, { origin: null });
    expect(response.status).toBe(200);
    expect(await tokenCount()).toBe(before + 1);
  });

  it("guards every state-changing route, and sign-in too", async () => {
    const { property, calendar, token, webhook } = ann;
    const routes: Array<[string, Record<string, string>]> = [
      ["/properties", { name: "Evil", timeZone: "" }],
      [`/properties/${property.id}/calendars`, { url: "https://evil.test/x.ics", source: "" }],
      [`/properties/${property.id}/calendars`, { url: "https://evil.test/x.ics", source: "", confirm: "1" }],
      [`/calendars/${calendar.id}/remove`, {}],
      [`/properties/${property.id}/feed`, { rotate: "1" }],
      [`/properties/${property.id}/stays`, { kind: "block", arrival: "2099-01-01", departure: "2099-01-05", summary: "Evil", note: "" }],
      [`/stays/${calendar.id}/cancel`, {}],
      ["/sync", { back: "/properties" }],
      ["/settings/tokens", { name: "evil", expiresInDays: "" }],
      [`/settings/tokens/${token.id}/revoke`, {}],
      ["/webhooks", { url: "https://evil.test/hook" }],
      [`/webhooks/${webhook.id}/remove`, {}],
      ["/settings/password", { currentPassword: "correct horse battery", password: "attacker's choice" }],
      ["/sign-out", {}],
    ];
    const feedToken = (await fx.store.getProperty(property.id))!.feedToken;
    for (const [path, fields] of routes) {
      expect((await ann.client.post(path, fields, { csrf: null })).status, `${path} without token`).toBe(403);
      expect((await ann.client.post(path, fields, { origin: "http://calsync.test:1234" })).status, `${path} from another port`).toBe(403);
    }
    expect((await fx.store.listProperties(ann.owner.id)).length).toBe(1);
    expect((await fx.store.listCalendars({ propertyId: property.id })).length).toBe(1);
    expect((await fx.store.listReservations({ propertyId: property.id })).filter((r) => r.source === "direct")).toEqual([]);
    expect((await fx.store.getProperty(property.id))!.feedToken).toBe(feedToken);
    expect((await fx.store.listTokens(ann.owner.id)).find((t) => t.id === token.id)!.revokedAt).toBeNull();
    expect((await fx.store.listSyncRuns({ ownerId: ann.owner.id })).length).toBe(0);
    expect((await fx.store.listWebhookEndpoints(ann.owner.id)).map((e) => e.id)).toEqual([webhook.id]);
    expect((await ann.client.get("/properties")).status).toBe(200);

    const visitor = fx.anonymous();
    await visitor.page("/sign-in");
    const noToken = await visitor.post("/sign-in", { email: ann.owner.email!, password: "correct horse battery" }, { csrf: null });
    expect(noToken.status).toBe(403);
  });

  it("answers 400 to a body that is not a small url-encoded form", async () => {
    const json = await fx.app.fetch(
      new Request(`${BASE}/settings/tokens`, { method: "POST", headers: { "content-type": "application/json", cookie: `calsync_session=${ann.client.cookies.get("calsync_session")}`, origin: BASE }, body: "{}" }),
    );
    expect(json.status).toBe(400);
    const huge = await ann.client.post("/settings/tokens", { name: "x".repeat(70_000), expiresInDays: "" });
    expect(huge.status).toBe(400);
  });
});

describe("another owner's ids", () => {
  it("answers 404 for another owner's property, calendar, token and webhook, and changes nothing", async () => {
    const victim = await ownerWithEverything("Vic");
    const { client } = await fx.signedIn("Eve");
    await client.page("/properties");
    const state = async () =>
      JSON.stringify([
        await fx.store.getProperty(victim.property.id),
        await fx.store.listCalendars({ propertyId: victim.property.id }),
        await fx.store.listTokens(victim.owner.id),
        await fx.store.listWebhookEndpoints(victim.owner.id),
      ]);
    const before = await state();
    const answers = [
      await client.get(`/properties/${victim.property.id}`),
      await client.get(`/properties/${victim.property.id}/timeline`),
      await client.post(`/properties/${victim.property.id}/calendars`, { url: "https://example.com/x.ics", source: "" }),
      await client.post(`/properties/${victim.property.id}/calendars`, { url: "https://example.com/x.ics", source: "", confirm: "1" }),
      await client.post(`/properties/${victim.property.id}/feed`, { rotate: "1" }),
      await client.post(`/properties/${victim.property.id}/stays`, { kind: "block", arrival: "2099-01-01", departure: "2099-01-05", summary: "", note: "" }),
      await client.post(`/calendars/${victim.calendar.id}/remove`, {}),
      await client.post(`/settings/tokens/${victim.token.id}/revoke`, {}),
      await client.post(`/webhooks/${victim.webhook.id}/remove`, {}),
      await client.get("/properties/prp_doesNotExist"),
      await client.post("/webhooks/whk_doesNotExist/remove", {}),
      await client.post("/calendars/cal_doesNotExist/remove", {}),
    ];
    for (const response of answers) {
      expect(response.status).toBe(404);
      const html = await response.text();
      expect(html).toContain("There is nothing here, or it is not yours.");
      expect(html).not.toContain(victim.property.name);
    }
    expect(await state()).toBe(before);
    // Nor does the other owner's list show it.
    expect(await client.page("/webhooks")).not.toContain(victim.webhook.id);
  });
});

describe("escaping", () => {
  let owner: Owner;
  let client: PageClient;
  beforeAll(async () => {
    ({ owner, client } = await fx.signedIn("Esc <b>aped</b>"));
  });

  it("shows feed text, property names and token names as text, never as markup", async () => {
    const property = await fx.store.createProperty(owner.id, "<script>alert('name')</script> Loft");
    const feed = fx.feeds.url("/escape/vrbo.ics", {
      body: buildIcs([{ uid: "x", start: day(4), end: day(7), summary: "<img src=x onerror=alert(1)>" }]),
    });
    await fx.store.createCalendar({ propertyId: property.id, source: "vrbo", url: `${feed}?q="><svg onload=alert(2)>` });
    await client.page("/properties");
    const synced = await client.post("/sync", { back: "/properties" });
    expect(synced.status).toBe(200);
    await client.page("/settings/tokens");
    const created = await client.post("/settings/tokens", { name: "<b>bold</b>", expiresInDays: "" });

    const pages = [
      await (await client.get("/properties")).text(),
      await (await client.get(`/properties/${property.id}`)).text(),
      await (await client.get(`/properties/${property.id}/timeline`)).text(),
      await synced.text(),
      await created.text(),
    ];
    const all = pages.join("\n");
    for (const raw of ["<img src=x", "<script>alert", "<svg", "<b>bold</b>", "<b>aped</b>"]) expect(all).not.toContain(raw);
    expect(pages[2]).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(pages[0]).toContain("&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt; Loft");
    expect(pages[4]).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(pages[0]).toContain("Esc &lt;b&gt;aped&lt;/b&gt;");
  });

  it("escapes a flash message made from a property name", async () => {
    await client.page("/properties");
    const added = await client.post("/properties", { name: `<i onmouseover="x">Hover</i>`, timeZone: "" });
    expect(added.status).toBe(303);
    const page = await (await client.get(added.headers.get("location")!)).text();
    expect(page).toContain("Added &lt;i onmouseover=&quot;x&quot;&gt;Hover&lt;/i&gt;.");
    expect(page).not.toContain("<i onmouseover");
  });
});

describe("faults", () => {
  it("answers an unexpected fault on a page with an HTML 500 naming the request id, never the error", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "calsync-fault-"));
    const broken = await openStore(path.join(dir, "fault.db"));
    const errors: unknown[] = [];
    const app = createApp({ store: broken, onError: (error) => errors.push(error) });
    await broken.close();
    const response = await app.fetch(new Request(`${BASE}/properties`, { headers: { cookie: "calsync_session=x", "x-request-id": "fault-1" } }));
    rmSync(dir, { recursive: true, force: true });
    expect([response.status, response.headers.get("content-type")]).toEqual([500, "text/html; charset=utf-8"]);
    const html = await response.text();
    expect(html).toContain("request id fault-1");
    expect(html).not.toMatch(/database|sqlite|at .*\.ts/i);
    expect(errors).toHaveLength(1);
  });
});

describe("paths", () => {
  it("keeps JSON answers under /api/, /ical/ and /healthz, and answers HTML elsewhere", async () => {
    const json = [await fx.app.fetch(new Request(`${BASE}/api/nope`)), await fx.app.fetch(new Request(`${BASE}/ical/nope.ics`)), await fx.app.fetch(new Request(`${BASE}/api/v1`, { method: "POST" }))];
    for (const response of json) {
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
    const page = await fx.app.fetch(new Request(`${BASE}/nope`));
    expect([page.status, page.headers.get("content-type")]).toEqual([404, "text/html; charset=utf-8"]);
    expect(await page.text()).toContain("Not found");
  });

  it("serves its CSS and JavaScript itself, with ETags", async () => {
    const css = await fx.app.fetch(new Request(`${BASE}/assets/dashboard.css`));
    expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
    const etag = css.headers.get("etag")!;
    const again = await fx.app.fetch(new Request(`${BASE}/assets/dashboard.css`, { headers: { "if-none-match": etag } }));
    expect(again.status).toBe(304);
    const js = await fx.app.fetch(new Request(`${BASE}/assets/dashboard.js`));
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await fx.app.fetch(new Request(`${BASE}/assets/other.js`))).status).toBe(404);
  });

  it("answers an API-only app (dashboard: false) with JSON everywhere", async () => {
    const api = createApp({ store: fx.store, dashboard: false });
    const response = await api.fetch(new Request(`${BASE}/properties`));
    expect([response.status, response.headers.get("content-type")]).toEqual([404, "application/json"]);
  });
});
