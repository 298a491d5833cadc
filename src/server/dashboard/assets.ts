// The dashboard's CSS, JavaScript and icon: files of the package (`assets/dashboard/`), served by
// calsync itself (no CDN), read once and revalidated by ETag.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { H3 } from "h3";

// src/server/dashboard and dist/server/dashboard are both three levels below the package root.
const ASSET_DIR = new URL("../../../assets/dashboard/", import.meta.url);
const TYPES: Record<string, string> = {
  "dashboard.css": "text/css; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "icon.svg": "image/svg+xml",
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

let loaded: Map<string, Asset> | undefined;

function assets(): Map<string, Asset> {
  loaded ??= new Map(
    Object.entries(TYPES).map(([name, type]) => {
      const body = readFileSync(new URL(name, ASSET_DIR));
      return [name, { body, type, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` }];
    }),
  );
  return loaded;
}

/** Adds GET /assets/<file>. */
export function registerAssets(app: H3): void {
  app.get("/assets/:file", (event) => {
    const asset = assets().get(event.url.pathname.slice(event.url.pathname.lastIndexOf("/") + 1));
    if (!asset) return undefined;
    const headers = { "content-type": asset.type, etag: asset.etag, "cache-control": "no-cache" };
    if (event.req.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, statusText: "Not Modified", headers });
    return new Response(new Uint8Array(asset.body), { status: 200, statusText: "OK", headers });
  });
}
