// Reads a feed body handed over chunk by chunk: decompress (gzip/deflate/br) and cap the DECODED size.
// No stream for the common uncompressed body: its chunks are only collected. The bytes stay bytes
// (feed-bytes.ts turns them into text where they are parsed: on a server, a worker thread).
import type { Transform } from "node:stream";
import zlib from "node:zlib";

/** Outcome of reading a body: its bytes, or why it could not be read. */
export type BodyResult =
  | { kind: "ok"; bytes: Uint8Array }
  | { kind: "too_large" }
  | { kind: "bad_encoding"; encoding: string }
  | { kind: "corrupt" };

/** Takes a body's chunks as they arrive; `result` settles once it has all of them, or knows enough. */
export interface BodyReader {
  push(chunk: Buffer): void;
  /** The transfer ended: every chunk was pushed. */
  end(): void;
  /** The transfer broke: `result` rejects with `error`. */
  fail(error: Error): void;
  /** Rejects only with a transfer's error (`fail`); too large, unknown codings and corrupt data are values. */
  readonly result: Promise<BodyResult>;
}

/**
 * A reader for a body sent with `contentEncoding`. `stop` is called when it needs no more of the body
 * (more than `maxBytes` decoded bytes, an unknown coding, corrupt data): the caller then ends the transfer.
 */
export function bodyReader(contentEncoding: string | undefined, maxBytes: number, stop: () => void): BodyReader {
  const encodings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  const decoders: Transform[] = [];
  // Codings are listed in the order they were applied: undo them last to first.
  for (const coding of encodings.reverse()) {
    const decoder = decoderFor(coding);
    if (!decoder) {
      for (const made of decoders) made.destroy();
      stop();
      return settled({ kind: "bad_encoding", encoding: coding });
    }
    decoders.push(decoder);
  }

  let settle!: (outcome: BodyResult | Error) => void;
  const outcome = new Promise<BodyResult | Error>((resolve) => (settle = resolve));
  let done = false;
  const chunks: Buffer[] = [];
  let size = 0;
  // Anything but a whole body ends the transfer too (a broken one has ended already).
  const finish = (result: BodyResult | Error) => {
    if (done) return;
    done = true;
    if (result instanceof Error || result.kind !== "ok") {
      for (const decoder of decoders) decoder.destroy();
      if (!(result instanceof Error)) stop();
    }
    settle(result);
  };
  // Counting decoded bytes is what stops a gzip bomb: a few KB on the wire, gigabytes inflated.
  const take = (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size > maxBytes) finish({ kind: "too_large" });
    else chunks.push(chunk);
  };
  const complete = () => finish({ kind: "ok", bytes: joined(chunks, size) });

  const first = decoders[0];
  if (first) {
    for (let i = 1; i < decoders.length; i++) decoders[i - 1]!.pipe(decoders[i]!);
    const last = decoders[decoders.length - 1]!;
    last.on("data", take).on("end", complete);
    for (const decoder of decoders) decoder.on("error", (error) => finish(isZlibError(error) ? { kind: "corrupt" } : error));
  }

  return {
    push: (chunk) => (first ? first.write(chunk) : take(chunk)),
    end: () => (first ? first.end() : complete()),
    fail: (error) => finish(error),
    result: outcome.then((result) => (result instanceof Error ? Promise.reject(result) : result)),
  };
}

/**
 * The chunks in one Uint8Array of its own, which a parse worker can be handed (transferred). Not Buffer.concat: its
 * result may sit in Node's shared pool (up to 32 KiB on Node 24), which is never handed over, only copied.
 */
function joined(chunks: readonly Buffer[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

function settled(result: BodyResult): BodyReader {
  return { push() {}, end() {}, fail() {}, result: Promise.resolve(result) };
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
