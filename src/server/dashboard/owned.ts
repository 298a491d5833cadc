// Ids from URLs resolved only within the signed-in owner's own records: another owner's id reads as
// unknown (404), so nobody learns that it exists.
import type { Calendar, Property, Store, TokenRecord, WebhookEndpoint } from "../../store/types.js";

/** The property `id` if it belongs to `ownerId`. */
export async function ownedProperty(store: Store, ownerId: string, id: string | undefined): Promise<Property | undefined> {
  const property = id ? await store.getProperty(id) : undefined;
  return property?.ownerId === ownerId ? property : undefined;
}

/** The calendar `id` if it belongs to `ownerId`. */
export async function ownedCalendar(store: Store, ownerId: string, id: string | undefined): Promise<Calendar | undefined> {
  const calendar = id ? await store.getCalendar(id) : undefined;
  return calendar?.ownerId === ownerId ? calendar : undefined;
}

/** The API token `id` if it belongs to `ownerId`. */
export async function ownedToken(store: Store, ownerId: string, id: string | undefined): Promise<TokenRecord | undefined> {
  return id ? (await store.listTokens(ownerId)).find((token) => token.id === id) : undefined;
}

/** The webhook endpoint `id` if it belongs to `ownerId`. */
export async function ownedWebhook(store: Store, ownerId: string, id: string | undefined): Promise<WebhookEndpoint | undefined> {
  const endpoint = id ? await store.getWebhookEndpoint(id) : undefined;
  return endpoint?.ownerId === ownerId ? endpoint : undefined;
}
