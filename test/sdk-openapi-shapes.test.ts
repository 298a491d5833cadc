// The SDK's resource types against the OpenAPI document (CONTRACT §14). The bodies below are typed
// with the SDK's types (`satisfies`: no field missing, none extra), and each must validate against
// the schema the document gives for that operation and status; so a field the document and the SDK
// see differently fails here. An operation the document does not list fails too: nothing is skipped.
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/server/openapi/document.js";
import type {
  Availability,
  DirectStayCreate,
  DirectStayResult,
  DirectStayUpdate,
  Page,
  Property,
  Reservation,
} from "../src/sdk/index.js";
import { channelStay, errorBody, nightsUnavailableBody, sampleProperties, sampleReservations } from "./helpers/resource-fixtures.js";

const document = openApiDocument() as unknown as { paths: Record<string, Record<string, any>> };
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema({ ...document, $id: "https://calsync.invalid/openapi.json" });

// `/api/v1/properties/{propertyId}` and `/api/v1/properties/{id}` are the same route.
const shape = (path: string) => path.replace(/\{[^}]*\}/g, "{}");
function operation(path: string, method: string): [string, any] {
  const documented = Object.keys(document.paths).find((candidate) => shape(candidate) === shape(path));
  const found = documented === undefined ? undefined : document.paths[documented]?.[method];
  expect(found, `${method.toUpperCase()} ${path} is not in the OpenAPI document`).toBeDefined();
  return [documented!, found];
}

function validateAt(pointer: string[], body: unknown): void {
  const escaped = pointer.map((key) => key.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  const validate = ajv.compile({ $ref: `https://calsync.invalid/openapi.json#/${escaped}/content/application~1json/schema` });
  expect(validate(body), JSON.stringify(validate.errors, null, 1)).toBe(true);
}

const stay: DirectStayResult = {
  ...channelStay("res_direct", "airbnb", 60, 3),
  calendarId: "cal_direct",
  source: "direct",
  note: "phone booking",
  warnings: [{ code: "calendar_not_refreshed", calendarId: "cal_vrbo", message: "feed answered HTTP 503" }],
};
const properties = { data: sampleProperties(), nextCursor: "b3BhcXVl" } satisfies Page<Property>;
const reservations = { data: sampleReservations(), nextCursor: null } satisfies Page<Reservation>;
const availability = {
  propertyId: "prp_sea",
  timeZone: "Europe/Lisbon",
  from: "2031-03-01",
  to: "2031-03-03",
  nights: [
    { date: "2031-03-01", available: false, reservationIds: ["res_01"] },
    { date: "2031-03-02", available: true, reservationIds: [] },
  ],
} satisfies Availability;
const conflict = nightsUnavailableBody([{ reservationId: "res_01", source: "airbnb", arrival: "2031-03-01", departure: "2031-03-04" }]);

const P = "/api/v1/properties/{id}";
const R = "/api/v1/reservations/{id}";
const answers: Array<[method: string, path: string, status: string, body: unknown]> = [
  ["get", "/api/v1/properties", "200", properties],
  ["get", P, "200", sampleProperties()[2]],
  ["get", P, "404", errorBody("not_found", "no such property")],
  ["get", `${P}/reservations`, "200", reservations],
  ["get", `${P}/reservations`, "400", errorBody("bad_request", "malformed cursor")],
  ["get", `${P}/availability`, "200", availability],
  ["post", `${P}/reservations`, "201", stay],
  ["post", `${P}/reservations`, "409", conflict],
  ["post", `${P}/reservations`, "422", errorBody("invalid_request", "departure: must be after arrival")],
  ["post", `${P}/reservations`, "403", errorBody("insufficient_scope", "this token lacks the write scope")],
  ["patch", R, "200", { ...stay, warnings: undefined }],
  ["patch", R, "409", errorBody("not_direct", "res_01 came from airbnb")],
  ["delete", R, "200", { ...channelStay("res_direct", "airbnb", 60, 3), source: "direct", status: "cancelled" } satisfies Reservation],
];

const requests: Array<[method: string, path: string, body: unknown]> = [
  ["post", `${P}/reservations`, { kind: "booking", arrival: "2031-03-01", departure: "2031-03-04", summary: "Ana", note: "phone", refresh: false } satisfies DirectStayCreate],
  ["patch", R, { departure: "2031-03-05", note: "late" } satisfies DirectStayUpdate],
];

describe("SDK resource types and the OpenAPI document", () => {
  it.for(answers)("%s %s %s: the SDK's shape is what the document describes", ([method, path, status, body]) => {
    const [documented, op] = operation(path, method);
    expect(op.responses?.[status], `${method} ${documented} documents no ${status}`).toBeDefined();
    validateAt(["paths", documented, method, "responses", status], JSON.parse(JSON.stringify(body)));
  });

  it.for(requests)("%s %s: the SDK's request body is what the document accepts", ([method, path, body]) => {
    const [documented, op] = operation(path, method);
    expect(op.requestBody, `${method} ${documented} documents no request body`).toBeDefined();
    validateAt(["paths", documented, method, "requestBody"], body);
  });
});
