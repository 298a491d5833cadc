// x-request-id: echo the caller's id when it is safe to log and send back, else make one.
import { randomUUID } from "node:crypto";

// Characters that cannot break a log line or a header; long enough for UUIDs and trace ids.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id of a request: a valid incoming `x-request-id`, else a fresh random one. */
export function requestIdOf(headers: Headers): string {
  const incoming = headers.get("x-request-id");
  return incoming !== null && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
