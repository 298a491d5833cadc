// createParsePool(): parseFeed (and recurrence expansion) on worker threads, so a server's event loop
// keeps answering while a 7 MB feed or a dense series is read, with a hard deadline per feed.
import { existsSync } from "node:fs";
import os from "node:os";
import * as workerThreads from "node:worker_threads";
import { Piscina } from "piscina";
import { createFetchLimiter } from "./fetch-limiter.js";
import type { ParseFeedOptions, ParseFeedResult } from "./parse-feed.js";
import { fingerprint } from "./feed-bytes.js";
import type { ReadFeed } from "./feed-reading.js";
import { unpackParseResult, unpackReading, type PackedParseResult, type PackedReading } from "./parse-transfer.js";
import type { ParseStarted, ParseTask } from "./parse-worker.js";

/** Options of `createParsePool`. */
export interface ParsePoolOptions {
  /**
   * Worker threads. @default the machine's cores but one (at least one): the event loop fetches and writes on the
   * one left. On 2 cores, one worker against two synced as fast (the feeds' latency bounds a sync), with 8 % less
   * CPU and 19 MiB less at peak (issue 40's probe: 4,000 calendars, 20 owners at 100 ms).
   */
  threads?: number;
  /**
   * Longest one feed may take to parse, in milliseconds, counted from when a worker takes it. Past
   * it the worker is terminated (and replaced) and the calendar fails with parse_error. @default 20000
   */
  timeoutMs?: number;
  /** Receives a worker's failure outside any feed (it is replaced; the pool keeps working). @default ignored */
  onError?: (error: unknown) => void;
}

/** A pool of parse workers; `parse` has the signature of `SyncOwnerOptions.parse`. */
export interface ParsePool {
  /**
   * Reads one fetched body on a worker (`SyncOwnerOptions.read`): its fingerprint, text and events. The bytes are
   * handed over, not copied, when they own their whole buffer: `bytes` is unusable afterwards. Never rejects.
   */
  read: ReadFeed;
  /** Parses one feed body's text on a worker; never rejects (a deadline or a dead worker is a parse_error). */
  parse(body: string, options: ParseFeedOptions): Promise<ParseFeedResult>;
  /** Terminates the workers; parses still running end as parse_error. */
  close(): Promise<void>;
}

type PackedResult = PackedParseResult | PackedReading;
/** Node ≥ 21's check (absent from Node 20's typings and runtime). */
const isMarkedAsUntransferable = (workerThreads as { isMarkedAsUntransferable?: (object: unknown) => boolean }).isMarkedAsUntransferable;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const DEFAULT_TIMEOUT_MS = 20_000;
/**
 * Each worker's young generation, in MiB. Left to V8 it grows to 32 MiB a worker: with it at 4, a serve syncing
 * 4,000 calendars peaked 17 MiB lower, and a 5 MiB feed of 20,000 events parsed within 3 % of the time.
 */
const WORKER_YOUNG_GENERATION_MB = 4;
/** Bodies up to this many bytes are fingerprinted on the calling thread first (256 KiB: about half a millisecond). */
const HASH_HERE_BYTES = 256 * 1024;
/** How long a feed may wait for a worker to take it (one starting loads node-ical); past it, a worker cannot start. */
const START_TIMEOUT_MS = 30_000;

/** Creates a pool of parse workers; they start with the first feed and stay until `close()`. */
export function createParsePool(options: ParsePoolOptions = {}): ParsePool {
  const threads = options.threads ?? Math.max(1, os.availableParallelism() - 1);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`parse threads must be a whole number ≥ 1, got ${threads}`);
  if (!(timeoutMs > 0)) throw new RangeError(`the parse timeout must be a positive number of milliseconds, got ${timeoutMs}`);
  const filename = parseWorkerFile();
  // A feed's deadline starts when a worker takes it, not while it waits behind others or for a worker
  // to start (each loads node-ical first): workers say when they start a task.
  const started = new Map<number, () => void>();
  // Started on the first feed, so a server that never syncs (and every test of one) runs no threads.
  let piscina: Piscina<ParseTask, PackedResult> | undefined;
  const workers = () => {
    if (piscina) return piscina;
    piscina = new Piscina<ParseTask, PackedResult>({
      filename,
      minThreads: threads,
      maxThreads: threads,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // Unheard, piscina's "error" event would be thrown and end the whole process.
    piscina.on("error", (error: unknown) => options.onError?.(error));
    piscina.on("message", (message: Partial<ParseStarted>) => started.get(message.parseStarted ?? -1)?.());
    return piscina;
  };
  let closed = false;
  // Hand piscina no more feeds than it has workers, so none waits in its queue.
  const admission = createFetchLimiter({ concurrency: threads, perHost: threads, ownerConcurrency: threads, ownerPerHost: threads });
  const limit = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  let nextId = 0;

  /** Runs one task on a worker, within its deadline; a worker's failure becomes `failed(message)`. */
  const runTask = <T>(task: DistributiveOmit<ParseTask, "id">, transferList: ArrayBuffer[], failed: (message: string) => T) =>
    admission.run("", async (): Promise<T | PackedResult> => {
      const id = nextId++;
      const deadline = new AbortController();
      let running = false;
      let timer = setTimeout(() => deadline.abort(), Math.max(timeoutMs, START_TIMEOUT_MS));
      started.set(id, () => {
        running = true;
        clearTimeout(timer);
        timer = setTimeout(() => deadline.abort(), timeoutMs);
      });
      try {
        if (closed) throw new Error("the parse pool is closed");
        return await workers().run({ id, ...task }, { signal: deadline.signal, transferList });
      } catch (error) {
        const reason = error instanceof Error ? error.message.slice(0, 200) : "the parser stopped";
        return failed(
          !deadline.signal.aborted
            ? `feed could not be read: ${reason}`
            : running
              ? `feed took longer than ${limit} to read; reading it was stopped`
              : "feed could not be read: no parse worker started",
        );
      } finally {
        started.delete(id);
        clearTimeout(timer);
      }
    });
  const parseError = (message: string) => ({ ok: false as const, error: { code: "parse_error" as const, message } });

  return {
    async read(bytes, task) {
      // A small body that did not change needs no worker: its hash costs less here than a place in the queue behind
      // other owners' big feeds (each up to the parse timeout).
      if (bytes.byteLength <= HASH_HERE_BYTES) {
        const contentHash = fingerprint(bytes, task.day);
        if (contentHash === task.knownHash) return { unchanged: true, contentHash };
      }
      const own = transferable(bytes) ? bytes : new Uint8Array(bytes);
      const packed = await runTask({ bytes: own, task }, [own.buffer as ArrayBuffer], (message) => ({
        unchanged: false as const,
        contentHash: null,
        parsed: parseError(message),
        head: "",
      }));
      return unpackReading(packed as PackedReading);
    },
    async parse(body, parseOptions) {
      const packed = await runTask({ body, options: parseOptions }, [], parseError);
      return unpackParseResult(packed as PackedParseResult);
    },
    async close() {
      closed = true;
      await piscina?.destroy();
    },
  };
}

/**
 * Whether `bytes` can be handed to a worker as they are: alone in their ArrayBuffer (a small Buffer shares one with
 * others, Node's pool: 8 KiB on Node 20, 64 KiB on 24) and not marked untransferable (as that pool is; a transfer of
 * one throws on Node 24). Otherwise the Uint8Array constructor makes a copy of their own (a Buffer's slice() would not).
 */
function transferable(bytes: Uint8Array): boolean {
  const { buffer } = bytes;
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength) return false;
  // Node 22 and later can say; Node 20 cannot, and marks nothing but its pool, which the check above leaves out.
  return !(isMarkedAsUntransferable?.(buffer) ?? false);
}

/**
 * The file piscina loads in each worker (CommonJS: see parse-worker-entry.cts), as a file URL: beside this
 * file in dist/; tests run this file from src/, where only TypeScript is.
 */
export function parseWorkerFile(): string {
  for (const candidate of ["./parse-worker-entry.cjs", "../../dist/engine/parse-worker-entry.cjs"]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) return url.href;
  }
  throw new Error("the parse worker is not built (dist/engine/parse-worker-entry.cjs): run `npm run build`");
}
