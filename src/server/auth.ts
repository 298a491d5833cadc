// x-api-key → the token's owner, or the 401 answer (CONTRACT §2, §3).
import type { TokenScope } from "../resource-types.js";
import type { Store } from "../store/types.js";
import { checkToken } from "./tokens.js";
import { errorResponse } from "./errors.js";

/** Who is calling, or the ready 401 response. */
export type Authentication = { ok: true; ownerId: string; tokenId: string; scopes: TokenScope[] } | { ok: false; response: Response };

/** Checks the `x-api-key` header and records the token's use on success. */
export async function authenticate(store: Store, headers: Headers, requestId: string, now: Date): Promise<Authentication> {
  const check = await checkToken(store, headers.get("x-api-key"), now);
  if (!check.ok) {
    return { ok: false, response: errorResponse(401, check.code, requestId, { "www-authenticate": "ApiKey" }) };
  }
  await store.touchToken(check.token.id, now);
  return { ok: true, ownerId: check.token.ownerId, tokenId: check.token.id, scopes: check.token.scopes };
}
