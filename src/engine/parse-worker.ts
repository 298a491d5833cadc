// The task a parse-pool worker thread runs: one feed body read (fingerprint, text, events) or parsed,
// packed for the trip back.
import { readlinkSync } from "node:fs";
import os from "node:os";
import { parentPort } from "node:worker_threads";
import { readFeedBody, type ReadFeedTask } from "./feed-reading.js";
import { parseFeed, type ParseFeedOptions } from "./parse-feed.js";
import { packParseResult, packReading, type PackedParseResult, type PackedReading } from "./parse-transfer.js";

lowerPriority();

/** What the pool sends a worker: a body's bytes to read, or (the pool's `parse`) its text to parse. */
export type ParseTask = { id: number } & ({ bytes: Uint8Array; task: ReadFeedTask } | { body: string; options: ParseFeedOptions });

/** The message a worker posts as it starts a task (piscina re-emits it as the pool's "message" event). */
export interface ParseStarted {
  parseStarted: number;
}

/**
 * Reads or parses one feed body (piscina calls the default export). The packed events are one Uint8Array, which
 * the trip back copies in one piece (a millisecond for 5 MB). Not moved: marking it for a transfer needs piscina's
 * `move`, and importing piscina's package in a worker made a pool closed while that worker started hang on Node 24.
 */
export default async function parseTask(input: ParseTask): Promise<PackedParseResult | PackedReading> {
  // Names the task, so its deadline starts when a worker really takes it.
  parentPort?.postMessage({ parseStarted: input.id } satisfies ParseStarted);
  return "bytes" in input ? packReading(await readFeedBody(input.bytes, input.task, parseFeed)) : packParseResult(parseFeed(input.body, input.options));
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
