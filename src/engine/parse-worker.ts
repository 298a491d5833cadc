// The task a parse-pool worker thread runs: parseFeed on one body, packed for the trip back.
import { parentPort } from "node:worker_threads";
import { parseFeed, type ParseFeedOptions } from "./parse-feed.js";
import { packParseResult, type PackedParseResult } from "./parse-transfer.js";

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
