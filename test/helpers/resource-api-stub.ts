// A stand-in for the API v1 resource routes (CONTRACT §14) on a loopback port, serving the contract's
// JSON from test/helpers/resource-fixtures.ts: cursor pages, 404 across ids, 409 with conflicts, 422,
// 403, Idempotency-Key replay, and scripted failures before an answer, for the SDK and remote CLI
// tests. The real routes are tested against the real server in the server's own tests.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Availability, NightsConflict, Property, Reservation } from "../../src/resource-types.js";
import { errorBody, nightsUnavailableBody, READ_ONLY_KEY, sampleProperties, sampleReservations, STUB_KEY, WRITE_ONLY_KEY } from "./resource-fixtures.js";
import type { StubReply } from "./stub-api-server.js";

/** What the stub saw of one request. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface ResourceApiStub {
  url: string;
  properties: Property[];
  reservations: Reservation[];
  requests: SeenRequest[];
  /** The next requests get these answers first (then the routes answer again). Clears `requests`. */
  failNext(...replies: StubReply[]): void;
  /** Puts the sample data back and forgets requests and idempotency keys. */
  reset(): void;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (value: unknown): value is string =>
  typeof value === "string" && DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const overlaps = (r: Reservation, arrival: string, departure: string) => r.arrival < departure && arrival < r.departure;

/** Starts the stub on 127.0.0.1, port 0. */
export async function startResourceApiStub(): Promise<ResourceApiStub> {
  let failures: StubReply[] = [];
  const keys = new Map<string, { body: string; answer: Answer }>();
  let created = 0;
  const stub: ResourceApiStub = {
    url: "",
    properties: sampleProperties(),
    reservations: sampleReservations(),
    requests: [],
    failNext: (...replies) => {
      failures = replies;
      stub.requests.length = 0;
    },
    reset: () => {
      stub.properties = sampleProperties();
      stub.reservations = sampleReservations();
      stub.requests.length = 0;
      failures = [];
      keys.clear();
      created = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };

  function page<T extends { id: string }>(rows: T[], query: URLSearchParams): Answer {
    const limit = Number(query.get("limit") ?? 100);
    const cursor = query.get("cursor");
    let start = 0;
    if (cursor !== null) {
      const after = Buffer.from(cursor, "base64url").toString();
      start = rows.findIndex((row) => row.id === after.replace(/^after:/, "")) + 1;
      if (!after.startsWith("after:") || start === 0) return { status: 400, body: errorBody("bad_request", "malformed cursor") };
    }
    const data = rows.slice(start, start + limit);
    const more = start + limit < rows.length;
    return { status: 200, body: { data, nextCursor: more ? Buffer.from(`after:${data.at(-1)!.id}`).toString("base64url") : null } };
  }

  function conflictsOf(propertyId: string, arrival: string, departure: string, self?: string): NightsConflict[] {
    return stub.reservations
      .filter((r) => r.propertyId === propertyId && r.status === "active" && r.id !== self && overlaps(r, arrival, departure))
      .map((r) => ({ reservationId: r.id, source: r.source, arrival: r.arrival, departure: r.departure }));
  }

  function write(reservation: Reservation | undefined, arrival: unknown, departure: unknown, apply: () => Reservation, status = 200): Answer {
    if (!isDate(arrival)) return { status: 422, body: errorBody("invalid_request", "arrival: not a date (YYYY-MM-DD)") };
    if (!isDate(departure) || departure <= arrival) return { status: 422, body: errorBody("invalid_request", "departure: must be a date after arrival") };
    if (departure <= new Date().toISOString().slice(0, 10)) return { status: 422, body: errorBody("invalid_request", "departure: the stay is over") };
    const conflicts = conflictsOf(reservation?.propertyId ?? "", arrival, departure, reservation?.id);
    if (conflicts.length > 0) return { status: 409, body: nightsUnavailableBody(conflicts) };
    return { status, body: apply() };
  }

  function route(method: string, path: string, query: URLSearchParams, body: any, key: string | undefined): Answer {
    const property = (id: string) => stub.properties.find((p) => p.id === id);
    const notFound = { status: 404, body: errorBody("not_found", "no such property or reservation") };
    let match: RegExpExecArray | null;
    if (method === "GET" && key === WRITE_ONLY_KEY) return { status: 403, body: errorBody("insufficient_scope", "this token lacks the read scope") };
    if (method === "GET" && path === "/api/v1/properties") return page(stub.properties, query);
    if (method === "GET" && (match = /^\/api\/v1\/properties\/([^/]+)$/.exec(path))) {
      const found = property(decodeURIComponent(match[1]!));
      return found ? { status: 200, body: found } : notFound;
    }
    if ((match = /^\/api\/v1\/properties\/([^/]+)\/(reservations|availability)$/.exec(path))) {
      const id = decodeURIComponent(match[1]!);
      if (!property(id)) return notFound;
      if (method === "GET" && match[2] === "reservations") {
        const status = query.get("status") ?? "active";
        const from = query.get("from") ?? "0000-01-01";
        const to = query.get("to") ?? "9999-12-31";
        const rows = stub.reservations.filter((r) => r.propertyId === id && (status === "all" || r.status === status) && overlaps(r, from, to));
        return page(rows, query);
      }
      if (method === "GET") {
        const from = query.get("from") ?? new Date().toISOString().slice(0, 10);
        const to = query.get("to") ?? addDays(from, 365);
        if (!isDate(from) || !isDate(to) || to <= from) return { status: 422, body: errorBody("invalid_request", "from/to: not a range of dates") };
        const answer: Availability = { propertyId: id, timeZone: property(id)!.timeZone, from, to, nights: [] };
        for (let date = from; date < to; date = addDays(date, 1)) {
          const holders = conflictsOf(id, date, addDays(date, 1)).map((c) => c.reservationId);
          answer.nights.push({ date, available: holders.length === 0, reservationIds: holders });
        }
        return { status: 200, body: answer };
      }
      if (method === "POST" && match[2] === "reservations") {
        if (key === READ_ONLY_KEY) return { status: 403, body: errorBody("insufficient_scope", "this token lacks the write scope") };
        const now = new Date().toISOString();
        return write({ propertyId: id } as Reservation, body?.arrival, body?.departure, () => {
          const stay: Reservation = {
            id: `res_direct_${++created}`, propertyId: id, calendarId: `cal_direct_${id}`, source: "direct", kind: body.kind ?? "booking",
            status: "active", arrival: body.arrival, departure: body.departure, summary: body.summary ?? "", note: body.note ?? null,
            echoOf: null, createdAt: now, updatedAt: now,
          };
          stub.reservations.push(stay);
          return stay;
        }, 201);
      }
    }
    if ((match = /^\/api\/v1\/reservations\/([^/]+)$/.exec(path)) && (method === "PATCH" || method === "DELETE")) {
      if (key === READ_ONLY_KEY) return { status: 403, body: errorBody("insufficient_scope", "this token lacks the write scope") };
      const found = stub.reservations.find((r) => r.id === decodeURIComponent(match![1]!));
      if (!found) return notFound;
      if (found.source !== "direct") return { status: 409, body: errorBody("not_direct", `${found.id} came from ${found.source}: it is read-only`) };
      if (method === "DELETE") return { status: 200, body: Object.assign(found, { status: "cancelled", updatedAt: new Date().toISOString() }) };
      if (found.status === "cancelled") return { status: 422, body: errorBody("invalid_request", "the stay is cancelled: create a new one instead", "status") };
      const next = { ...found, ...body };
      return write(found, next.arrival, next.departure, () => Object.assign(found, next, { updatedAt: new Date().toISOString() }));
    }
    return { status: 404, body: errorBody("not_found", "unknown path") };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stub");
      const text = Buffer.concat(chunks).toString();
      const body = text ? JSON.parse(text) : undefined;
      stub.requests.push({ method: req.method ?? "", path: url.pathname, query: url.searchParams, headers: req.headers, body });
      const send = (status: number, answer: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", "x-request-id": `req_${stub.requests.length}`, ...headers });
        res.end(typeof answer === "string" ? answer : JSON.stringify(answer));
      };
      const failure = failures.shift();
      if (failure) return send(failure.status ?? 503, failure.body ?? "", failure.headers);
      const apiKey = req.headers["x-api-key"];
      if (apiKey !== STUB_KEY && apiKey !== READ_ONLY_KEY && apiKey !== WRITE_ONLY_KEY) return send(401, errorBody("invalid_token", "unknown token"), { "www-authenticate": "ApiKey" });
      const idempotencyKey = req.headers["idempotency-key"] as string | undefined;
      const stored = idempotencyKey ? keys.get(idempotencyKey) : undefined;
      if (stored && stored.body !== text) return send(422, errorBody("idempotency_key_reused", "Idempotency-Key reused with another body"));
      const answer = stored?.answer ?? route(req.method ?? "", url.pathname, url.searchParams, body, apiKey);
      if (idempotencyKey && !stored) keys.set(idempotencyKey, { body: text, answer: structuredClone(answer) });
      send(answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
