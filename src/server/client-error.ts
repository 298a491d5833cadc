// Requests Node's HTTP parser refuses before any route sees them (headers over 16 KB, a control
// character in a header, a request that never finished arriving). Node would answer them with a bare
// status and no body; they get the JSON error body like every other answer.
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import type { ApiErrorCode } from "../types.js";
import { SECURITY_HEADERS } from "./dashboard/security.js";
import { errorBody, REASONS } from "./errors.js";

// The same statuses Node picks in its own default handler, with our codes.
interface Answer {
  status: number;
  code: ApiErrorCode;
  message?: string;
}
const ANSWERS: Record<string, Answer> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: "request_too_large" },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, code: "request_too_large", message: "the request's chunk extensions are too large" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: "bad_request", message: "the request did not arrive in time" },
};
const FALLBACK: Answer = { status: 400, code: "bad_request" };

/** The `clientError` listener of an HTTP server: answers with the JSON error body, then closes the connection. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // Nothing to answer on a reset connection, or once part of a response went out on it.
  if (error.code === "ECONNRESET" || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const answer = ANSWERS[error.code ?? ""] ?? FALLBACK;
  const body = JSON.stringify(answer.message ? errorBody(answer.code, answer.message) : errorBody(answer.code));
  const head = [
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? ""}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${randomUUID()}`,
    // The headers every other answer carries (docs/security.md: "on every answer, API included").
    ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
    "connection: close",
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}
