// One GET on an undici dispatcher through its handler interface rather than `request()`: no response
// stream, no AsyncResource, no promise per chunk. A 304 or a 20-event feed cost about 0.04 ms less CPU
// this way (a quarter of a bare `request()`, measured under the engine's fetch limits).
import type { EventEmitter } from "node:events";
import type { Dispatcher } from "undici";
import { bodyReader, type BodyReader, type BodyResult } from "./feed-body.js";

/** Status and headers of an answer. */
export interface ResponseHead {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

/** A request under way: its head, then its body read or let go. */
export interface Exchange {
  /** Settles with the answer's status and headers; rejects with the transfer's error. */
  readonly head: Promise<ResponseHead>;
  /** Reads the body (see `bodyReader`); rejects with the transfer's error. */
  read(contentEncoding: string | undefined, maxBytes: number): Promise<BodyResult>;
  /**
   * Lets the body go without reading it, keeping the connection when the rest is short: a 304's ends at
   * once; any other gets `graceMs` and `maxBytes` at most before the connection is cut.
   */
  discard(options: { maxBytes: number; graceMs: number }): void;
  /** Cuts the transfer (the connection is closed). */
  abort(): void;
}

/** What one exchange asks for. */
export interface ExchangeRequest {
  url: URL;
  headers: Record<string, string>;
  /** Emits "abort" to cut the transfer (the fetch's deadline or the caller's signal). */
  cancel: EventEmitter;
  /** undici's deadlines for the head and between body chunks, in milliseconds. */
  timeoutMs: number;
}

/** Starts a GET of `request.url` on `dispatcher`. */
export function startExchange(dispatcher: Dispatcher, request: ExchangeRequest): Exchange {
  return new FeedExchange(dispatcher, request);
}

/** Thrown into an exchange cut by its caller. */
const CUT = new Error("the transfer was cut");

class FeedExchange implements Exchange, Dispatcher.DispatchHandler {
  readonly head: Promise<ResponseHead>;
  private resolveHead!: (head: ResponseHead) => void;
  private rejectHead!: (error: Error) => void;
  private controller: Dispatcher.DispatchController | null = null;
  /** Where body chunks go once the caller chose; until then they wait here. */
  private reader: BodyReader | null = null;
  private early: Buffer[] = [];
  private ended = false;
  private error: Error | null = null;
  private discarding: { left: number; timer?: NodeJS.Timeout } | null = null;
  private readonly cancel: EventEmitter;
  private readonly onCancel = () => this.abort();

  constructor(dispatcher: Dispatcher, request: ExchangeRequest) {
    this.head = new Promise<ResponseHead>((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    // Nobody may be waiting for the head when the transfer fails later (a discarded body).
    this.head.catch(() => {});
    this.cancel = request.cancel;
    this.cancel.once("abort", this.onCancel);
    const { url, headers, timeoutMs } = request;
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: "GET",
        headers,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      this,
    );
  }

  read(contentEncoding: string | undefined, maxBytes: number): Promise<BodyResult> {
    const reader = bodyReader(contentEncoding, maxBytes, () => this.abort());
    this.reader = reader;
    for (const chunk of this.early) reader.push(chunk);
    this.early = [];
    if (this.error) reader.fail(this.error);
    else if (this.ended) reader.end();
    return reader.result;
  }

  discard({ maxBytes, graceMs }: { maxBytes: number; graceMs: number }): void {
    this.cancel.off("abort", this.onCancel);
    const left = maxBytes - this.early.reduce((size, chunk) => size + chunk.length, 0);
    this.early = [];
    if (this.ended || this.error) return;
    if (left < 0) return this.abort();
    const timer = setTimeout(() => this.abort(), graceMs);
    timer.unref();
    this.discarding = { left, timer };
  }

  abort(): void {
    if (this.ended || this.error) return;
    if (this.controller) this.controller.abort(CUT);
    else this.fail(CUT);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.error) controller.abort(this.error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx answers are not the response.
    if (statusCode < 200) return;
    this.resolveHead({ statusCode, headers });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.reader) return this.reader.push(chunk);
    if (!this.discarding) return void this.early.push(chunk);
    this.discarding.left -= chunk.length;
    if (this.discarding.left < 0) this.abort();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.settle();
    this.reader?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  private fail(error: Error): void {
    if (this.error || this.ended) return;
    this.error = error;
    this.settle();
    this.rejectHead(error);
    this.reader?.fail(error);
  }

  private settle(): void {
    this.cancel.off("abort", this.onCancel);
    clearTimeout(this.discarding?.timer);
  }
}
