// The client object: resources hang off it (`client.calendars.sync()`), as in openai-node.
import type { SyncResponse } from "../types.js";
import { APIError } from "./errors.js";
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from "./options.js";
import { postJson } from "./request.js";

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call, including a retry wait; the promise rejects with `AbortError`. */
  signal?: AbortSignal | undefined;
}

/** `client.calendars`: synchronising the owner's calendars. */
export interface CalendarsResource {
  /**
   * Runs `POST /api/v1/calendars/sync` and resolves with the Sync response for 200 (every calendar
   * synchronised) and 207 (`ok: false`, see each failed entry's `result.error`); throws otherwise.
   */
  sync(options?: RequestOptions): Promise<SyncResponse>;
}

/** Typed client of the calsync HTTP API v1. The API key is held privately, never as a property. */
export class CalsyncClient {
  /** The resolved server address, without a trailing slash. */
  readonly baseURL: string;
  /** Time limit of one attempt, in ms. */
  readonly timeout: number;
  /** Retries after a retryable failure. */
  readonly maxRetries: number;
  readonly calendars: CalendarsResource;
  readonly #options: ResolvedClientOptions;

  /** Throws `CalsyncError` when no API key is given or found, or an option is unusable. */
  constructor(options?: ClientOptions) {
    this.#options = resolveClientOptions(options);
    this.baseURL = this.#options.baseURL;
    this.timeout = this.#options.timeout;
    this.maxRetries = this.#options.maxRetries;
    this.calendars = { sync: (callOptions) => this.#sync(callOptions) };
  }

  async #sync(callOptions: RequestOptions = {}): Promise<SyncResponse> {
    const answer = await postJson(this.#options, "/api/v1/calendars/sync", callOptions.signal);
    if (!isSyncResponse(answer.body)) throw APIError.from(answer.status, answer.body, answer.headers);
    return answer.body;
  }
}

/** Creates a client; throws `CalsyncError` at once when no API key is given or found in `CALSYNC_API_KEY`. */
export function createClient(options?: ClientOptions): CalsyncClient {
  return new CalsyncClient(options);
}

// A JSON 200 from something else (a captive portal, a wrong baseURL) must not pass as a result.
function isSyncResponse(body: unknown): body is SyncResponse {
  if (typeof body !== "object" || body === null) return false;
  const candidate = body as Partial<Record<keyof SyncResponse, unknown>>;
  return (
    typeof candidate.ok === "boolean" &&
    typeof candidate.syncedCalendars === "number" &&
    typeof candidate.failed === "number" &&
    Array.isArray(candidate.results)
  );
}
