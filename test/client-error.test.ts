// Requests Node's HTTP parser refuses before any route runs still get the JSON error body
// (docs/http-api.md: every answer is JSON), not Node's bare status line. Raw sockets, since fetch refuses to send them.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import type { RunningServer } from "../src/server/index.js";
import { SECURITY_HEADERS } from "../src/server/dashboard/security.js";
import { openApiDocument } from "../src/server/openapi/document.js";
import { useServerFixtures } from "./helpers/server-fixtures.js";

const { newStore, serve } = useServerFixtures();

/** Sends `request` as raw bytes and resolves with everything the server wrote before closing. */
function rawRequest(server: RunningServer, request: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    // The server may close while big headers are still on their way: what it wrote is what counts.
    socket.on("error", (error: NodeJS.ErrnoException) => (received ? resolve(received) : reject(error)));
    socket.on("close", () => resolve(received));
    socket.write(request);
  });
}

function parseAnswer(raw: string) {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  return { statusLine, headers, body: JSON.parse(body) as { ok: boolean; error: { code: string; message: string } } };
}

/** The OpenAPI document lists `status` for the sync operation, with `code` among its error codes. */
function expectDocumented(status: string, code: string): void {
  const response = (openApiDocument().paths["/api/v1/calendars/sync"].post.responses as Record<string, any>)[status];
  expect(response, `the OpenAPI document has no ${status}`).toBeDefined();
  expect(response.content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toContain(code);
}

describe("requests the HTTP parser refuses", () => {
  it("answers 431 request_too_large in JSON to 64 KB of headers", async () => {
    const server = await serve(await newStore());
    const raw = await rawRequest(server, `POST /api/v1/calendars/sync HTTP/1.1\r\nHost: x\r\nx-padding: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    const answer = parseAnswer(raw);
    expect(answer.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers).toMatchObject(SECURITY_HEADERS);
    expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(raw.split("\r\n\r\n")[1]!));
    expect(answer.body).toEqual({ ok: false, error: { code: "request_too_large", message: expect.any(String) } });
    expectDocumented("431", "request_too_large");
  });

  it("answers 413 request_too_large in JSON to chunk extensions over Node's limit, as the OpenAPI document says", async () => {
    const server = await serve(await newStore());
    const raw = await rawRequest(
      server,
      `POST /api/v1/calendars/sync HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;${"a".repeat(20_000)}\r\nhello\r\n0\r\n\r\n`,
    );
    const answer = parseAnswer(raw);
    expect(answer.statusLine).toBe("HTTP/1.1 413 Content Too Large");
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.body).toEqual({ ok: false, error: { code: "request_too_large", message: expect.any(String) } });
    expectDocumented("413", "request_too_large");
  });

  it("answers 400 bad_request in JSON to a control character in x-api-key, and serves the next connection", async () => {
    const server = await serve(await newStore());
    const raw = await rawRequest(server, "POST /api/v1/calendars/sync HTTP/1.1\r\nHost: x\r\nx-api-key: cs_\x01abc\r\n\r\n");
    const answer = parseAnswer(raw);
    expect(answer.statusLine).toBe("HTTP/1.1 400 Bad Request");
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers.connection).toBe("close");
    expect(answer.headers).toMatchObject(SECURITY_HEADERS);
    expect(answer.body).toEqual({ ok: false, error: { code: "bad_request", message: expect.any(String) } });
    expect(raw).not.toContain("abc");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expectDocumented("400", "bad_request");
  });
});
