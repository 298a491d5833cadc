// Reads a feed body: decompress (gzip/deflate/br), cap the DECODED size, decode UTF-8, drop a BOM.
import { pipeline, type Readable, type Transform } from "node:stream";
import zlib from "node:zlib";

/** Outcome of reading a body: the text, or why it could not be read. */
export type BodyResult =
  | { kind: "ok"; text: string }
  | { kind: "too_large" }
  | { kind: "bad_encoding"; encoding: string }
  | { kind: "corrupt" };

/** Reads `body` sent with `contentEncoding`, stopping as soon as more than `maxBytes` decoded bytes arrive. */
export async function readFeedBody(body: Readable, contentEncoding: string | undefined, maxBytes: number): Promise<BodyResult> {
  const encodings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  const decoders: Transform[] = [];
  // Codings are listed in the order they were applied: undo them last to first.
  for (const coding of encodings.reverse()) {
    const decoder = decoderFor(coding);
    if (!decoder) {
      body.destroy();
      return { kind: "bad_encoding", encoding: coding };
    }
    decoders.push(decoder);
  }

  let stream: Readable = body;
  if (decoders.length > 0) {
    const last = decoders[decoders.length - 1]!;
    // pipeline() propagates errors both ways and destroys the source when we stop reading early.
    pipeline([body, ...decoders], () => {});
    stream = last;
  }

  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      // Counting decoded bytes is what stops a gzip bomb: a few KB on the wire, gigabytes inflated.
      if (size > maxBytes) {
        stream.destroy();
        body.destroy();
        return { kind: "too_large" };
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (isZlibError(error)) return { kind: "corrupt" };
    throw error;
  }
  // TextDecoder turns invalid bytes into U+FFFD and, by default, consumes a leading BOM.
  const text = new TextDecoder("utf-8").decode(Buffer.concat(chunks, size));
  return { kind: "ok", text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

function decoderFor(coding: string): Transform | null {
  // Z_SYNC_FLUSH: accept a body whose compressed stream ends without its trailer, as browsers do.
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(lenient);
    case "deflate":
      return zlib.createInflate(lenient);
    case "br":
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return null;
  }
}

function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // zlib's codes are Z_DATA_ERROR and friends; brotli's are ERR__ERROR_FORMAT_… (negative errno).
  return typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR__ERROR_"));
}
