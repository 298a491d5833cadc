// GET /api/v1/openapi.json (CONTRACT §12): a valid OpenAPI 3.1 document, served without a token,
// shipped as `calsync/openapi.json`, and describing what the real server really answers.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { RunningServer } from "../src/server/index.js";
import { openApiDocument } from "../src/server/openapi/document.js";
import { NAMED_SCHEMAS } from "../src/server/openapi/schemas.js";
import { WEBHOOK_EVENT_TYPES } from "../src/types.js";
import { isBuilt } from "./helpers/cli.js";
import { generateToken } from "../src/server/tokens.js";
import { day } from "./helpers/ics.js";
import { ics, ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";

const { feed, newStore, serve } = useServerFixtures();
const SYNC = "/api/v1/calendars/sync";
const DOC = "/api/v1/openapi.json";

async function servedDocument(server: RunningServer): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}${DOC}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  return (await res.json()) as Record<string, unknown>;
}

// Validates a real answer against the document: its status is listed, its body matches the schema
// and every header the document promises for that status is there (integers as integers).
function checkAnswer(document: Record<string, unknown>, path: string, method: string, res: Response, body: unknown): void {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema({ ...document, $id: "https://calsync.invalid/openapi.json" });
  const pointer = ["paths", path, method, "responses", String(res.status)];
  const operation = pointer.reduce<any>((node, key) => node?.[key], document);
  expect(operation, `${method} ${path} documents no ${res.status}`).toBeDefined();
  const escaped = pointer.map((key) => key.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  const validate = ajv.compile({ $ref: `https://calsync.invalid/openapi.json#/${escaped}/content/application~1json/schema` });
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  for (const [name, header] of Object.entries<{ $ref: string }>(operation.headers ?? {})) {
    const value = res.headers.get(name);
    expect(value, `${res.status} lacks ${name}`).not.toBeNull();
    const schema = header.$ref.split("/").slice(1).reduce<any>((node, key) => node[key], document).schema;
    if (schema.type === "integer") expect(Number(value)).toBeGreaterThanOrEqual(schema.minimum ?? 0);
    if (schema.type === "integer") expect(value).toMatch(/^\d+$/);
  }
}

describe("the OpenAPI document", () => {
  it("validates as OpenAPI 3.1 (and the validator does refuse a broken copy)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openApiDocument()) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");

    const broken = structuredClone(openApiDocument()) as any;
    delete broken.paths[SYNC].post.responses["200"].description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("has schemas a strict JSON Schema 2020-12 compiler accepts, keywords and all", () => {
    const ajv = new Ajv2020({ strict: true });
    for (const schema of Object.values(NAMED_SCHEMAS)) expect(() => ajv.compile(schema)).not.toThrow();
  });

  it("describes the sync operation: API key security, its statuses, error codes and the additive fields", () => {
    const document = openApiDocument();
    const operation = document.paths[SYNC].post;
    expect(Object.keys(operation.responses).sort()).toEqual(["200", "207", "400", "401", "405", "408", "413", "429", "431", "500", "503"]);
    expect(document.security).toEqual([{ ApiKey: [] }]);
    expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(NAMED_SCHEMAS.ApiErrorCode.enum).toContain("rate_limited");
    expect(NAMED_SCHEMAS.SyncResponse.properties).toHaveProperty("conflicts");
    expect(NAMED_SCHEMAS.SyncResultDetails.properties).toHaveProperty("warnings");
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it("is served without a token, to GET and HEAD, and refuses other methods with 405", async () => {
    const server = await serve(await newStore());
    expect(await servedDocument(server)).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    const head = await fetch(`${server.url}${DOC}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const postRes = await fetch(`${server.url}${DOC}`, { method: "POST" });
    expect(postRes.status).toBe(405);
    expect(postRes.headers.get("allow")).toBe("GET, HEAD");
    expect(((await postRes.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
  });

  it("ships as calsync/openapi.json, equal to what the server serves", async () => {
    if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
    const file = createRequire(import.meta.url).resolve("calsync/openapi.json");
    expect(file).toMatch(/dist[/\\]openapi\.json$/);
    const server = await serve(await newStore());
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(await servedDocument(server));
  });

  it("matches real answers of the server: 200 with conflicts, 207, 401 and 429", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: feed({ body: ics("a1") }) },
        { source: "vrbo", url: feed({ body: ics("v1") }) },
      ],
    });
    const bob = await ownerWith(store, "Bob", {
      Cottage: [
        { source: "airbnb", url: feed({ body: ics("b1") }) },
        { source: "booking", url: feed({ status: 503, body: "busy" }) },
      ],
    });
    const server = await serve(store, { rateLimit: { limit: 1, windowSeconds: 60 } });
    const document = await servedDocument(server);
    const answer = async (res: Response) => {
      checkAnswer(document, SYNC, "post", res, await res.json());
      return res.status;
    };

    const ok = await post(server, ann.token);
    const okBody = (await ok.clone().json()) as { conflicts?: unknown[] };
    expect(okBody.conflicts).toHaveLength(1);
    expect(await answer(ok)).toBe(200);
    expect(await answer(await post(server, bob.token))).toBe(207);
    expect(await answer(await post(server))).toBe(401);
    expect(await answer(await post(server, "cs_notarealtokenatallnotarealtoken"))).toBe(401);
    expect(await answer(await post(server, ann.token))).toBe(429);
  });

  it("matches real answers of the resource routes: pages, availability, direct stays and their refusals", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ status: 503, body: "busy" }) }] });
    const readOnly = generateToken();
    await store.createToken({ ownerId: ann.ownerId, name: "ro", prefix: readOnly.prefix, hash: readOnly.hash, expiresAt: null, scopes: ["read"] });
    const server = await serve(store, { apiRateLimit: { limit: 40, windowSeconds: 60 } });
    const document = await servedDocument(server);
    const loft = ann.propertyIds.Loft!;
    // A 405 is documented under the path's own operations (as the sync route's is under POST).
    const answer = async (method: string, template: string, path: string, body?: unknown, token = ann.token, documented = method) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(token ? { "x-api-key": token } : {}), "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      checkAnswer(document, template, documented.toLowerCase(), res, json);
      return { status: res.status, json };
    };
    const P = "/api/v1/properties";
    const stays = `${P}/{id}/reservations`;
    expect((await answer("GET", P, `${P}?limit=1`)).status).toBe(200);
    expect((await answer("GET", P, `${P}?limit=x`)).status).toBe(400);
    expect((await answer("GET", `${P}/{id}`, `${P}/${loft}`)).status).toBe(200);
    expect((await answer("GET", `${P}/{id}`, `${P}/prp_none`)).status).toBe(404);
    const made = await answer("POST", stays, `${P}/${loft}/reservations`, { kind: "booking", arrival: day(5), departure: day(8), note: "n" });
    expect(made.status).toBe(201);
    expect(made.json.warnings).toHaveLength(1);
    expect((await answer("POST", stays, `${P}/${loft}/reservations`, { kind: "block", arrival: day(6), departure: day(7) })).status).toBe(409);
    expect((await answer("POST", stays, `${P}/${loft}/reservations`, { kind: "block", arrival: day(6) })).status).toBe(422);
    expect((await answer("POST", stays, `${P}/${loft}/reservations`, { kind: "block", arrival: day(9), departure: day(10) }, readOnly.token)).status).toBe(403);
    expect((await answer("GET", stays, `${P}/${loft}/reservations?status=all&limit=1`)).status).toBe(200);
    expect((await answer("GET", stays, `${P}/${loft}/reservations?cursor=x`)).status).toBe(400);
    expect((await answer("GET", stays, `${P}/${loft}/reservations`, undefined, "")).status).toBe(401);
    expect((await answer("GET", `${P}/{id}/availability`, `${P}/${loft}/availability?from=${day(4)}&to=${day(9)}`)).status).toBe(200);
    const one = "/api/v1/reservations/{id}";
    const id = made.json.id as string;
    expect((await answer("PATCH", one, `/api/v1/reservations/${id}`, { summary: "Lee", refresh: false })).status).toBe(200);
    expect((await answer("DELETE", one, `/api/v1/reservations/${id}`)).status).toBe(200);
    expect((await answer("DELETE", one, "/api/v1/reservations/rsv_none")).status).toBe(404);
    expect((await answer("PUT", one, `/api/v1/reservations/${id}`, undefined, ann.token, "PATCH")).status).toBe(405);
  });
});
