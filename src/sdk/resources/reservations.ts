// `client.reservations`: a property's stays, and the direct ones an app puts in (CONTRACT §14).
import type { DirectStayCreate, DirectStayResult, DirectStayUpdate, Reservation } from "../../resource-types.js";
import type { RequestOptions, WriteOptions } from "../call-options.js";
import { idempotencyKeyOf } from "../idempotency.js";
import { PagePromise } from "../pagination.js";
import type { Transport } from "../request.js";
import { bodyAs, isReservation, pageOf, segment } from "./answers.js";

/** Query of `reservations.list()`. */
export interface ReservationListParams {
  /** Keep stays with a night on or after this date (`YYYY-MM-DD`). */
  from?: string | undefined;
  /** Keep stays with a night before this date (`YYYY-MM-DD`, exclusive). */
  to?: string | undefined;
  /** @default "active" (the server's) */
  status?: "active" | "cancelled" | "all" | undefined;
  /** Reservations per page, 1–500. @default 100 (the server's) */
  limit?: number | undefined;
  /** Start at this page (a `nextCursor` of an earlier page). @default the first page */
  cursor?: string | undefined;
}

/** `client.reservations`. */
export class Reservations {
  readonly #send: Transport;

  constructor(send: Transport) {
    this.#send = send;
  }

  /** A property's reservations of every calendar (direct stays included), by arrival then id; async-iterable over every page. */
  list(propertyId: string, params: ReservationListParams = {}, options: RequestOptions = {}): PagePromise<Reservation> {
    const path = `/api/v1/properties/${segment("propertyId", propertyId)}/reservations`;
    const isPage = pageOf(isReservation);
    return new PagePromise(async (cursor) => {
      const query = { from: params.from, to: params.to, status: params.status, limit: params.limit, cursor };
      return bodyAs(await this.#send({ method: "GET", path, query, signal: options.signal }), isPage);
    }, params.cursor);
  }

  /**
   * Puts in a direct stay (a booking no channel knows of, or a block). The server first refreshes
   * the property's channel calendars unless `refresh: false`. `ConflictError` (`.conflicts`) when
   * a night is taken, `UnprocessableEntityError` for a bad field.
   */
  async create(propertyId: string, body: DirectStayCreate, options: WriteOptions = {}): Promise<DirectStayResult> {
    const path = `/api/v1/properties/${segment("propertyId", propertyId)}/reservations`;
    return this.#write("POST", path, body, options);
  }

  /** Moves or renames a direct stay; new nights are checked as `create` does. `ConflictError` `not_direct` for a channel's reservation. */
  async update(reservationId: string, body: DirectStayUpdate, options: WriteOptions = {}): Promise<DirectStayResult> {
    return this.#write("PATCH", `/api/v1/reservations/${segment("reservationId", reservationId)}`, body, options);
  }

  /** Cancels a direct stay and resolves with it (`status: "cancelled"`). */
  async cancel(reservationId: string, options: WriteOptions = {}): Promise<Reservation> {
    return this.#write("DELETE", `/api/v1/reservations/${segment("reservationId", reservationId)}`, undefined, options);
  }

  async #write(method: "POST" | "PATCH" | "DELETE", path: string, body: unknown, options: WriteOptions): Promise<DirectStayResult> {
    // One key per call, made before the first attempt, so every retry of this call carries the same one.
    const idempotencyKey = idempotencyKeyOf(options.idempotencyKey);
    return bodyAs(await this.#send({ method, path, body, idempotencyKey, signal: options.signal }), isReservation);
  }
}
