// `client.turnovers`: when guests leave and who arrives next, for the cleaning (CONTRACT §18).
import type { Turnover } from "../../resource-types.js";
import type { RequestOptions } from "../call-options.js";
import { PagePromise } from "../pagination.js";
import type { Transport } from "../request.js";
import { bodyAs, isObject, pageOf, segment } from "./answers.js";

/** Query of `turnovers.list()`. */
export interface TurnoverListParams {
  /** Only this property's turnovers. @default every property of the token's owner */
  propertyId?: string | undefined;
  /** First date, `YYYY-MM-DD`. @default today in each property's zone */
  from?: string | undefined;
  /** The day after the last date (exclusive), `YYYY-MM-DD`, at most 366 days after `from`. @default from + 30 days */
  to?: string | undefined;
  /** Turnovers per page, 1–500. @default 100 (the server's) */
  limit?: number | undefined;
  /** Start at this page (a `nextCursor` of an earlier page). @default the first page */
  cursor?: string | undefined;
}

const isTurnover = (body: unknown): body is Turnover =>
  isObject(body) && typeof body.date === "string" && typeof body.departingReservationId === "string" && typeof body.tight === "boolean";

/** `client.turnovers`. */
export class Turnovers {
  readonly #send: Transport;

  constructor(send: Transport) {
    this.#send = send;
  }

  /** Turnovers by date, then departing reservation id; `for await` walks every page. */
  list(params: TurnoverListParams = {}, options: RequestOptions = {}): PagePromise<Turnover> {
    const path = params.propertyId === undefined ? "/api/v1/turnovers" : `/api/v1/properties/${segment("propertyId", params.propertyId)}/turnovers`;
    const isPage = pageOf(isTurnover);
    return new PagePromise(async (cursor) => {
      const query = { from: params.from, to: params.to, limit: params.limit, cursor };
      return bodyAs(await this.#send({ method: "GET", path, query, signal: options.signal }), isPage);
    }, params.cursor);
  }
}
