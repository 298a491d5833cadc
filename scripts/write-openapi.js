// Build step after tsc: writes dist/openapi.json (the `calsync/openapi.json` export) from the same
// code that serves GET /api/v1/openapi.json, so the shipped file and the served document cannot differ.
import { writeFileSync } from "node:fs";
import { openApiDocument } from "../dist/server/openapi/document.js";

writeFileSync(new URL("../dist/openapi.json", import.meta.url), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
