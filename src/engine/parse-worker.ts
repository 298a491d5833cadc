// The task a parse-pool worker thread runs: parseFeed on one body, packed for the trip back.
import { readlinkSync } from "node:fs";
import os from "node:os";
import { parentPort } from "node:worker_threads";
import { parseFeed, type ParseFeedOptions } from "./parse-feed.js";
import { packParseResult, type PackedParseResult } from "./parse-transfer.js";

lowerPriority();

/** What the pool sends a worker. */
export interface ParseTask {
  /** Names the task in the "started" message, so its deadline starts when a worker really takes it. */
  id: number;
  body: string;
  options: ParseFeedOptions;
}

/** The message a worker posts as it starts a task (piscina re-emits it as the pool's "message" event). */
export interface ParseStarted {
  parseStarted: number;
}

/** Parses one feed body (piscina calls the default export). */
export default function parseTask({ id, body, options }: ParseTask): PackedParseResult {
  parentPort?.postMessage({ parseStarted: id } satisfies ParseStarted);
  return packParseResult(parseFeed(body, options));
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
