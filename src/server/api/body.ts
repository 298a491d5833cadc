// Request bodies and headers of the write routes: JSON of at most 64 KiB (400 when it is not JSON, 413 when
// larger), and the `Idempotency-Key` header (1–255 visible characters, else 400).
import type { H3Event } from "h3";
import { failure, type ResourceFailure } from "../../resources/answers.js";

/** Largest body a write route reads. */
const MAX_BODY_BYTES = 64 * 1024;
/** Longest `Idempotency-Key` (CONTRACT §14). */
export const MAX_IDEMPOTENCY_KEY = 255;
/** An `Idempotency-Key`'s characters: visible ASCII (the OpenAPI document's schema says the same). */
export const IDEMPOTENCY_KEY_PATTERN = "^[\\x21-\\x7E]+$";
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The body as a JSON value (an empty body is `undefined`), or the refusal. */
export async function readJson(event: H3Event): Promise<{ ok: true; value: unknown } | ResourceFailure> {
  const declared = Number(event.req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return tooLarge();
  const bytes = new Uint8Array(await event.req.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) return tooLarge();
  if (bytes.byteLength === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown };
  } catch {
    return failure(400, "bad_request", "the body is not JSON", { field: "body" });
  }
}

/** The `Idempotency-Key` header: absent, a key, or the refusal. */
export function idempotencyKeyOf(event: H3Event): { ok: true; key: string | undefined } | ResourceFailure {
  const key = event.req.headers.get("idempotency-key");
  if (key === null) return { ok: true, key: undefined };
  if (key.length > MAX_IDEMPOTENCY_KEY || !KEY.test(key)) {
    return failure(400, "bad_request", `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} visible ASCII characters`, { field: "Idempotency-Key" });
  }
  return { ok: true, key };
}

function tooLarge(): ResourceFailure {
  return failure(413, "request_too_large", `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
}
