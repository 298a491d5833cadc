// `client.properties`: the owner's properties and which of their nights are free (CONTRACT §14).
import type { ChannelList } from "../../channel-types.js";
import type { Availability, Property, PropertyUpdate } from "../../resource-types.js";
import type { RequestOptions } from "../call-options.js";
import { PagePromise } from "../pagination.js";
import type { Transport } from "../request.js";
import { bodyAs, isAvailability, isChannelList, isProperty, pageOf, segment } from "./answers.js";

/** Query of `properties.list()`. */
export interface PropertyListParams {
  /** Properties per page, 1–500. @default 100 (the server's) */
  limit?: number | undefined;
  /** Start at this page (a `nextCursor` of an earlier page). @default the first page */
  cursor?: string | undefined;
}

/** Query of `properties.availability()`. */
export interface AvailabilityParams {
  /** First night, `YYYY-MM-DD`. @default today in the property's zone */
  from?: string | undefined;
  /** The day after the last night (exclusive), `YYYY-MM-DD`, at most 732 nights after `from`. @default from + 365 days */
  to?: string | undefined;
}

const PROPERTIES = "/api/v1/properties";

/** `client.properties`. */
export class Properties {
  readonly #send: Transport;

  constructor(send: Transport) {
    this.#send = send;
  }

  /**
   * The owner's properties: `for await (const p of client.properties.list())` walks every page,
   * `await client.properties.list()` (or `.page()`) gives one `CursorPage`.
   */
  list(params: PropertyListParams = {}, options: RequestOptions = {}): PagePromise<Property> {
    const isPage = pageOf(isProperty);
    return new PagePromise(async (cursor) => {
      const query = { limit: params.limit, cursor };
      return bodyAs(await this.#send({ method: "GET", path: PROPERTIES, query, signal: options.signal }), isPage);
    }, params.cursor);
  }

  /** One property with its calendars; `NotFoundError` for an id of another owner or none. */
  async retrieve(propertyId: string, options: RequestOptions = {}): Promise<Property> {
    const path = `${PROPERTIES}/${segment("propertyId", propertyId)}`;
    return bodyAs(await this.#send({ method: "GET", path, signal: options.signal }), isProperty);
  }

  /**
   * Changes a property's name, zone or turnover settings (CONTRACT §18); `UnprocessableEntityError` names the
   * field at fault, and nothing is stored.
   */
  async update(propertyId: string, body: PropertyUpdate, options: RequestOptions = {}): Promise<Property> {
    const path = `${PROPERTIES}/${segment("propertyId", propertyId)}`;
    return bodyAs(await this.#send({ method: "PATCH", path, body, signal: options.signal }), isProperty);
  }

  /** Every night in [from, to) with whether it is free and which active stays hold it. */
  async availability(propertyId: string, params: AvailabilityParams = {}, options: RequestOptions = {}): Promise<Availability> {
    const path = `${PROPERTIES}/${segment("propertyId", propertyId)}/availability`;
    const query = { from: params.from, to: params.to };
    return bodyAs(await this.#send({ method: "GET", path, query, signal: options.signal }), isAvailability);
  }

  /** What each channel has seen of the property's feed (CONTRACT §17): one entry per channel link, with its status and exposed nights. */
  async channels(propertyId: string, options: RequestOptions = {}): Promise<ChannelList> {
    const path = `${PROPERTIES}/${segment("propertyId", propertyId)}/channels`;
    return bodyAs(await this.#send({ method: "GET", path, signal: options.signal }), isChannelList);
  }
}
