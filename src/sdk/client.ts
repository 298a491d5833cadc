// The client object: resources hang off it (`client.calendars.sync()`, `client.properties.list()`), as in openai-node.
import type { SyncResponse } from "../types.js";
import type { RequestOptions } from "./call-options.js";
import { APIError } from "./errors.js";
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from "./options.js";
import { postJson, requestJson } from "./request.js";
import { Properties } from "./resources/properties.js";
import { Reservations } from "./resources/reservations.js";
import { Turnovers } from "./resources/turnovers.js";

export type { RequestOptions } from "./call-options.js";

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
  /** The owner's properties and their availability (CONTRACT §14). */
  readonly properties: Properties;
  /** Reservations of a property, and direct stays (CONTRACT §14). */
  readonly reservations: Reservations;
  /** Turnovers: departures and the next arrivals, for the cleaning (CONTRACT §18). */
  readonly turnovers: Turnovers;
  readonly #options: ResolvedClientOptions;

  /** Throws `CalsyncError` when no API key is given or found, or an option is unusable. */
  constructor(options?: ClientOptions) {
    this.#options = resolveClientOptions(options);
    this.baseURL = this.#options.baseURL;
    this.timeout = this.#options.timeout;
    this.maxRetries = this.#options.maxRetries;
    this.calendars = { sync: (callOptions) => this.#sync(callOptions) };
    const send = (request: Parameters<typeof requestJson>[1]) => requestJson(this.#options, request);
    this.properties = new Properties(send);
    this.reservations = new Reservations(send);
    this.turnovers = new Turnovers(send);
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
