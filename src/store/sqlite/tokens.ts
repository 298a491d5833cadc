// API tokens as stored (CONTRACT §3): a SHA-256 hash and a display prefix, never the token itself.
import type Database from "better-sqlite3";
import { newId } from "../../ids.js";
import { TOKEN_SCOPES } from "../../resource-types.js";
import { toToken, type TokenRow } from "./rows.js";
import type { Store } from "../types.js";

export type TokenQueries = Pick<Store, "createToken" | "listTokens" | "findTokenByHash" | "revokeToken" | "touchToken">;

/** Prepares the token statements of one database. */
export function tokenQueries(db: Database.Database): TokenQueries {
  const insert = db.prepare<[string, string, string, string, string, string, string | null, string]>(
    "INSERT INTO api_tokens (id, owner_id, name, prefix, hash, created_at, expires_at, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const one = db.prepare<[string], TokenRow>("SELECT * FROM api_tokens WHERE id = ?");
  const all = db.prepare<[string | null, string | null], TokenRow>(
    "SELECT * FROM api_tokens WHERE (? IS NULL OR owner_id = ?) ORDER BY rowid",
  );
  const byHash = db.prepare<[string], TokenRow>("SELECT * FROM api_tokens WHERE hash = ?");
  // Revoking twice keeps the first time: that is when the token stopped working.
  const revoke = db.prepare<[string, string]>("UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?");
  const touch = db.prepare<[string, string]>("UPDATE api_tokens SET last_used_at = ? WHERE id = ?");

  return {
    async createToken({ ownerId, name, prefix, hash, expiresAt, scopes = TOKEN_SCOPES }) {
      const id = newId("tok");
      insert.run(id, ownerId, name, prefix, hash, new Date().toISOString(), expiresAt?.toISOString() ?? null, scopes.join(","));
      return toToken(one.get(id)!);
    },
    listTokens: async (ownerId) => all.all(ownerId ?? null, ownerId ?? null).map(toToken),
    async findTokenByHash(hash) {
      const row = byHash.get(hash);
      return row && toToken(row);
    },
    revokeToken: async (id, at = new Date()) => revoke.run(at.toISOString(), id).changes > 0,
    async touchToken(id, at = new Date()) {
      touch.run(at.toISOString(), id);
    },
  };
}
