// API tokens as stored (CONTRACT §3): a SHA-256 hash and a display prefix, never the token itself.
import { newId } from "../../ids.js";
import { TOKEN_SCOPES } from "../../resource-types.js";
import type { PgDatabase } from "./pool.js";
import { toToken, type TokenRow } from "./rows.js";
import type { Store } from "../types.js";

export type TokenQueries = Pick<Store, "createToken" | "listTokens" | "findTokenByHash" | "revokeToken" | "touchToken">;

/** The token queries of one database. */
export function tokenQueries(db: PgDatabase): TokenQueries {
  return {
    async createToken({ ownerId, name, prefix, hash, expiresAt, scopes = TOKEN_SCOPES }) {
      const [row] = await db.query<TokenRow>(
        `INSERT INTO api_tokens (id, owner_id, name, prefix, hash, created_at, expires_at, scopes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING *`,
        [newId("tok"), ownerId, name, prefix, hash, new Date().toISOString(), expiresAt?.toISOString() ?? null, scopes.join(",")],
      );
      return toToken(row!);
    },
    listTokens: async (ownerId) =>
      (await db.query<TokenRow>("SELECT * FROM api_tokens WHERE ($1::text IS NULL OR owner_id = $1) ORDER BY seq", [ownerId ?? null]))
        .map(toToken),
    async findTokenByHash(hash) {
      const [row] = await db.query<TokenRow>("SELECT * FROM api_tokens WHERE hash = $1", [hash]);
      return row && toToken(row);
    },
    // Revoking twice keeps the first time: that is when the token stopped working.
    revokeToken: async (id, at = new Date()) =>
      (await db.run("UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2", [at.toISOString(), id])) > 0,
    async touchToken(id, at = new Date()) {
      await db.run("UPDATE api_tokens SET last_used_at = $1 WHERE id = $2", [at.toISOString(), id]);
    },
  };
}
