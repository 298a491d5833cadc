// GET /embed/availability.js and /embed/availability.<hash>.js (CONTRACT §15): the `<calsync-availability>`
// element, one dependency-free ES module of the package (assets/embed/), served to pages of any origin.
// The plain URL is always the current file (short cache): a snippet pasted once keeps working across
// upgrades. The hashed URL names these exact bytes, so it may be cached for a year; another hash is a 404.
import { readFileSync } from "node:fs";
import type { H3 } from "h3";
import { matchesEtag, strongEtag } from "./etag.js";

/** The current version's path. */
export const EMBED_SCRIPT_PATH = "/embed/availability.js";

// src/server and dist/server are both two levels below the package root.
const SCRIPT_URL = new URL("../../assets/embed/availability.js", import.meta.url);

/** Seconds a browser may keep the current version before revalidating. */
const CURRENT_MAX_AGE_S = 300;

interface EmbedScript {
  body: Uint8Array;
  etag: string;
  /** `/embed/availability.<12 hex of SHA-256>.js` */
  versionedPath: string;
}

let loaded: EmbedScript | undefined;

function script(): EmbedScript {
  if (!loaded) {
    const body = new Uint8Array(readFileSync(SCRIPT_URL));
    const etag = strongEtag(body);
    const hash = Buffer.from(etag.slice(1, -1), "base64url").toString("hex").slice(0, 12);
    loaded = { body, etag, versionedPath: `/embed/availability.${hash}.js` };
  }
  return loaded;
}

/** The path of this version of the element, cacheable for a year (it changes with the file's content). */
export function versionedEmbedPath(): string {
  return script().versionedPath;
}

/** Adds GET /embed/availability.js and /embed/availability.<hash>.js (HEAD too) to `app`. */
export function registerEmbedRoute(app: H3): void {
  app.get("/embed/:file", (event) => {
    // The last segment, so the route works mounted under a prefix too.
    const path = `/embed${event.url.pathname.slice(event.url.pathname.lastIndexOf("/"))}`;
    const { body, etag, versionedPath } = script();
    const versioned = path === versionedPath;
    if (!versioned && path !== EMBED_SCRIPT_PATH) return undefined;
    const headers = {
      "content-type": "text/javascript; charset=utf-8",
      etag,
      "cache-control": versioned ? "public, max-age=31536000, immutable" : `public, max-age=${CURRENT_MAX_AGE_S}`,
      // A module script of another origin is fetched in CORS mode: without this header no page could load it.
      "access-control-allow-origin": "*",
    };
    const ifNoneMatch = event.req.headers.get("if-none-match");
    if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, etag)) return new Response(null, { status: 304, statusText: "Not Modified", headers });
    return new Response(body, { status: 200, statusText: "OK", headers });
  });
}
