// GET /api/v1/openapi.json: the document, without authentication, so tools can read it before holding a token.
import type { H3, H3Event } from "h3";
import { jsonResponse, methodNotAllowed } from "../errors.js";
import { OPENAPI_PATH } from "../routes.js";
import { openApiDocument } from "./document.js";

/** Adds `GET /api/v1/openapi.json` (405 for other methods) to `app`. */
export function registerOpenApiRoute(app: H3, requestIdOf: (event: H3Event) => string): void {
  const answer = (event: H3Event) => jsonResponse(200, openApiDocument(), requestIdOf(event));
  app.get(OPENAPI_PATH, answer);
  // h3 falls back from HEAD to GET only when no route matches, and the 405 route below matches every method.
  app.on("HEAD", OPENAPI_PATH, answer);
  app.all(OPENAPI_PATH, (event) => methodNotAllowed(requestIdOf(event), OPENAPI_PATH, ["GET", "HEAD"]));
}
