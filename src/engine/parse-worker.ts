// The task a parse-pool worker thread runs: one feed body read (fingerprint, text, events) or parsed,
// packed for the trip back and handed over without a copy.
import { readlinkSync } from "node:fs";
import os from "node:os";
import { parentPort } from "node:worker_threads";
import { Piscina } from "piscina";
import { readFeedBody, type ReadFeedTask } from "./feed-reading.js";
import { parseFeed, type ParseFeedOptions } from "./parse-feed.js";
import { packParseResult, packReading, transferablesOf, type PackedParseResult, type PackedReading } from "./parse-transfer.js";

lowerPriority();

/** What the pool sends a worker: a body's bytes to read, or (the pool's `parse`) its text to parse. */
export type ParseTask = { id: number } & ({ bytes: Uint8Array; task: ReadFeedTask } | { body: string; options: ParseFeedOptions });

/** The message a worker posts as it starts a task (piscina re-emits it as the pool's "message" event). */
export interface ParseStarted {
  parseStarted: number;
}

/** Reads or parses one feed body (piscina calls the default export); the result moves back to the pool. */
export default async function parseTask(input: ParseTask): Promise<PackedParseResult | PackedReading> {
  // Names the task, so its deadline starts when a worker really takes it.
  parentPort?.postMessage({ parseStarted: input.id } satisfies ParseStarted);
  const packed = "bytes" in input ? packReading(await readFeedBody(input.bytes, input.task, parseFeed)) : packParseResult(parseFeed(input.body, input.options));
  return moved(packed);
}

/** `value`, marked for piscina to transfer its buffers rather than clone them; the pool receives `value` itself. */
function moved<T extends PackedParseResult | PackedReading>(value: T): T {
  const transferable = {
    get [Piscina.transferableSymbol]() {
      return transferablesOf(value);
    },
    get [Piscina.valueSymbol]() {
      return value;
    },
  };
  return Piscina.move(transferable as never) as unknown as T;
}

/**
 * Parsing is background work: the server's event loop, answering requests, should win the CPU from it (on
 * two cores, two parse workers starting and reading a 7 MB feed delayed /healthz by 100 ms and more). On
 * Linux each thread has a priority of its own, named by its thread id; elsewhere the worker keeps the process's.
 */
function lowerPriority(): void {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(threadId) && threadId > 0) os.setPriority(threadId, 10);
  } catch {
    // Not Linux, or not allowed: the same priority as the server, as before.
  }
}
