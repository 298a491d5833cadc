// The OpenAPI document tells a tool (Schemathesis, a generated client) what the server really takes and
// answers: its examples validate against their schemas and a real server takes them, its links lead from
// one answer to the next operation, its Idempotency-Key schema refuses what the server refuses, and every
// resource operation lists the statuses the server answers on it.
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/server/openapi/document.js";
import { exampleStayCreate } from "../src/server/openapi/examples.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";

const ID = "https://calsync.invalid/openapi.json";
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = any;
const document = JSON.parse(JSON.stringify(openApiDocument())) as Node;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ ...document, $id: ID });

const escape = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
/** A validator of the schema at `pointer` (keys from the document's root) with every $ref resolved. */
const schemaAt = (pointer: string[]) => ajv.compile({ $ref: `${ID}#/${pointer.map(escape).join("/")}` });
const at = (pointer: string[]): Node => pointer.reduce<Node>((node, key) => node?.[key], document);

/** Every example in the document with the pointer of the schema it must satisfy. */
function examples(node: Node = document, pointer: string[] = []): Array<{ where: string; schema: string[]; value: unknown }> {
  if (node === null || typeof node !== "object") return [];
  const found: Array<{ where: string; schema: string[]; value: unknown }> = [];
  // A parameter's or a media type's `example` beside its `schema`; a schema's own `examples` list.
  if ("example" in node && "schema" in node) found.push({ where: pointer.join("/"), schema: [...pointer, "schema"], value: node.example });
  if (Array.isArray(node.examples) && pointer.includes("schemas")) {
    node.examples.forEach((value: unknown, i: number) => found.push({ where: `${pointer.join("/")}/examples/${i}`, schema: pointer, value }));
  }
  for (const [key, child] of Object.entries(node)) if (key !== "examples" && key !== "example") found.push(...examples(child, [...pointer, key]));
  return found;
}

/** The operation with `operationId`, and where it is. */
function operation(operationId: string): { path: string; method: string; op: Node } {
  for (const [path, item] of Object.entries<Node>(document.paths)) {
    for (const [method, op] of Object.entries<Node>(item)) if (op.operationId === operationId) return { path, method: method.toUpperCase(), op };
  }
  throw new Error(`no operation ${operationId}`);
}

/** A link's `$response.body#/…` value read from an answer's body. */
function fromBody(expression: string, body: unknown): string {
  expect(expression).toMatch(/^\$response\.body#\//);
  const keys = expression.slice("$response.body#/".length).split("/");
  return keys.reduce<Node>((value, key) => value?.[key], body) as string;
}

describe("the OpenAPI document's examples, links and statuses", () => {
  const { newStore, serve } = useServerFixtures();

  it("has examples for bodies, parameters and resources, each valid against its schema", () => {
    const all = examples();
    const where = all.map((e) => e.where);
    for (const expected of [
      "components/schemas/DirectStayCreate/examples/0",
      "components/schemas/Reservation/examples/0",
      "components/schemas/Property/examples/0",
      "components/schemas/Availability/examples/0",
      "paths//api/v1/properties/{id}/reservations/post/requestBody/content/application/json",
      "paths//api/v1/reservations/{id}/patch/requestBody/content/application/json",
    ]) {
      expect(where).toContain(expected);
    }
    expect(all.filter((e) => e.where.includes("/parameters/")).length).toBeGreaterThanOrEqual(10);
    for (const { where, schema, value } of all) {
      const validate = schemaAt(schema);
      expect(validate(value), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // A stay over is a 422: the examples must stay ahead of the calendar (move EXAMPLE_YEAR in examples.ts).
    const yearAhead = new Date(Date.now() + 366 * 86_400_000).toISOString().slice(0, 10);
    expect(exampleStayCreate.arrival > yearAhead, "the examples' stays are less than a year ahead: raise EXAMPLE_YEAR").toBe(true);
    // The check can fail: a date of the wrong shape does not pass the schema.
    expect(schemaAt(["components", "schemas", "DirectStayCreate"])({ kind: "booking", arrival: "20300701", departure: "2030-07-05" })).toBe(false);
  });

  it("sends every request example to a real server and follows the links from create to update and cancel", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const server = await serve(store);
    const loft = ann.propertyIds.Loft!;
    // Path ids come from the server (an example id names no real property); every other value is the document's.
    const call = async (operationId: string, id: string) => {
      const { path, method, op } = operation(operationId);
      const query = new URLSearchParams();
      const headers: Record<string, string> = { "x-api-key": ann.token };
      for (const parameter of op.parameters ?? []) {
        if (parameter.in === "query" && parameter.example !== undefined) query.set(parameter.name, String(parameter.example));
        if (parameter.in === "header" && parameter.example !== undefined) headers[parameter.name] = String(parameter.example);
      }
      const example = op.requestBody?.content["application/json"].example;
      if (example !== undefined) headers["content-type"] = "application/json";
      const url = `${server.url}${path.replace("{id}", id)}${query.size ? `?${query}` : ""}`;
      const res = await fetch(url, { method, headers, body: example === undefined ? undefined : JSON.stringify(example) });
      const body = (await res.json()) as Node;
      expect(op.responses[String(res.status)], `${operationId} answered ${res.status}, undocumented`).toBeDefined();
      const validate = schemaAt(["paths", path, method.toLowerCase(), "responses", String(res.status), "content", "application/json", "schema"]);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      return { status: res.status, body, links: (op.responses[String(res.status)]?.links ?? {}) as Record<string, { operationId: string; parameters: { id: string } }> };
    };

    const listed = await call("listProperties", "");
    expect(listed.status).toBe(200);
    const retrieved = await call("retrieveProperty", fromBody(listed.links.RetrieveProperty!.parameters.id, listed.body));
    expect(retrieved).toMatchObject({ status: 200, body: { id: loft } });

    const createLink = retrieved.links.CreateReservation!;
    const created = await call(createLink.operationId, fromBody(createLink.parameters.id, retrieved.body));
    expect(created.status).toBe(201);
    // The same Idempotency-Key and body again: the first answer, not a second stay.
    const replay = await call(createLink.operationId, loft);
    expect(replay).toMatchObject({ status: 201, body: { id: created.body.id } });
    const update = created.links.UpdateReservation!;
    const updated = await call(update.operationId, fromBody(update.parameters.id, created.body));
    expect(updated).toMatchObject({ status: 200, body: { departure: "2030-07-06" } });
    const cancel = updated.links.CancelReservation!;
    const cancelled = await call(cancel.operationId, fromBody(cancel.parameters.id, updated.body));
    expect(cancelled).toMatchObject({ status: 200, body: { id: created.body.id, status: "cancelled" } });

    const page = await call("listReservations", loft);
    expect(page).toMatchObject({ status: 200, body: { data: [{ id: created.body.id }] } });
    expect(fromBody(page.links.CancelReservation!.parameters.id, page.body)).toBe(created.body.id);
    expect((await call("propertyAvailability", loft)).status).toBe(200);
  });

  it("describes Idempotency-Key as the server checks it", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const server = await serve(store);
    const { op } = operation("createReservation");
    const header = op.parameters.find((p: Node) => p.name === "Idempotency-Key");
    const validate = ajv.compile(header.schema);
    const keys = ["k", "4f7c1b2e-6b1d-4c39-9a52-0d8e7c1f5a10", "~!#", "a b", "k\tk", "clé", "k".repeat(255), "k".repeat(256)];
    let night = 0;
    for (const key of keys) {
      night += 2;
      const day = `2031-01-${String(night).padStart(2, "0")}`;
      const res = await fetch(`${server.url}/api/v1/properties/${ann.propertyIds.Loft}/reservations`, {
        method: "POST",
        // undici refuses to send a header value outside Latin-1; "clé" is sent as its UTF-8 bytes, as a client would.
        headers: { "x-api-key": ann.token, "content-type": "application/json", "idempotency-key": Buffer.from(key).toString("latin1") },
        body: JSON.stringify({ kind: "block", arrival: day, departure: `2031-01-${String(night + 1).padStart(2, "0")}`, refresh: false }),
      });
      expect({ key, accepted: res.status === 201 }).toEqual({ key, accepted: validate(key) });
      expect([201, 400], key).toContain(res.status);
    }
  });

  it("lists every status the server answers on each resource operation, and a real 431 matches its entry", async () => {
    const every = ["400", "401", "403", "405", "408", "413", "429", "431", "500", "503"];
    const ops = ["listProperties", "retrieveProperty", "listReservations", "createReservation", "propertyAvailability", "updateReservation", "cancelReservation"];
    for (const id of ops) expect(Object.keys(operation(id).op.responses), id).toEqual(expect.arrayContaining(every));
    for (const id of ["createReservation", "updateReservation"]) expect(Object.keys(operation(id).op.responses)).toEqual(expect.arrayContaining(["404", "409", "422"]));

    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const server = await serve(store);
    const res = await fetch(`${server.url}/api/v1/properties/${ann.propertyIds.Loft}`, { headers: { "x-api-key": ann.token, "x-padding": "p".repeat(20_000) } });
    expect(res.status).toBe(431);
    const { op } = operation("retrieveProperty");
    const validate = schemaAt(["paths", "/api/v1/properties/{id}", "get", "responses", "431", "content", "application/json", "schema"]);
    expect(validate(await res.json())).toBe(true);
    for (const name of Object.keys(op.responses["431"].headers)) expect(res.headers.get(name), name).not.toBeNull();
  });

  it("describes its own answer: an object with openapi, info and paths", () => {
    const { path } = operation("getOpenApiDocument");
    const validate = schemaAt(["paths", path, "get", "responses", "200", "content", "application/json", "schema"]);
    expect(validate(document)).toBe(true);
    expect(validate({ openapi: "3.1.0", info: { title: "t", version: "1" } })).toBe(false);
    expect(validate({ type: "object" })).toBe(false);
  });
});
