// Owners, tokens, properties and calendars: what the CLI and server administer.
import type Database from "better-sqlite3";
import type { CalendarSource } from "../types.js";
import { newId } from "./ids.js";
import {
  toCalendar, toOwner, toProperty, toToken,
  type CalendarRow, type OwnerRow, type PropertyRow, type TokenRow,
} from "./rows.js";
import type { Store } from "./types.js";

type Admin = Pick<Store,
  | "createOwner" | "listOwners" | "getOwner"
  | "createToken" | "listTokens" | "findTokenByHash" | "revokeToken" | "touchToken"
  | "createProperty" | "listProperties" | "getProperty" | "removeProperty" | "setPropertyFeedToken" | "getPropertyByFeedToken"
  | "createCalendar" | "listCalendars" | "getCalendar" | "removeCalendar">;

const CALENDAR_SELECT = `
  SELECT c.*, p.owner_id, p.name AS property_name FROM calendars c JOIN properties p ON p.id = c.property_id`;

/** Prepares the administration statements of one database. */
export function adminQueries(db: Database.Database): Admin {
  const q = {
    insertOwner: db.prepare("INSERT INTO owners (id, name, created_at) VALUES (?, ?, ?)"),
    owners: db.prepare<[], OwnerRow>("SELECT * FROM owners ORDER BY created_at, rowid"),
    owner: db.prepare<[string], OwnerRow>("SELECT * FROM owners WHERE id = ?"),
    insertToken: db.prepare(
      "INSERT INTO api_tokens (id, owner_id, name, prefix, hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    token: db.prepare<[string], TokenRow>("SELECT * FROM api_tokens WHERE id = ?"),
    tokens: db.prepare<[string | null, string | null], TokenRow>(
      "SELECT * FROM api_tokens WHERE (? IS NULL OR owner_id = ?) ORDER BY created_at, rowid",
    ),
    tokenByHash: db.prepare<[string], TokenRow>("SELECT * FROM api_tokens WHERE hash = ?"),
    revokeToken: db.prepare("UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?"),
    touchToken: db.prepare("UPDATE api_tokens SET last_used_at = ? WHERE id = ?"),
    insertProperty: db.prepare("INSERT INTO properties (id, owner_id, name, created_at) VALUES (?, ?, ?, ?)"),
    property: db.prepare<[string], PropertyRow>("SELECT * FROM properties WHERE id = ?"),
    properties: db.prepare<[string | null, string | null], PropertyRow>(
      "SELECT * FROM properties WHERE (? IS NULL OR owner_id = ?) ORDER BY name, created_at, rowid",
    ),
    removeProperty: db.prepare("DELETE FROM properties WHERE id = ?"),
    setFeedToken: db.prepare("UPDATE properties SET feed_token = ? WHERE id = ?"),
    propertyByFeedToken: db.prepare<[string], PropertyRow>("SELECT * FROM properties WHERE feed_token = ?"),
    insertCalendar: db.prepare(
      "INSERT INTO calendars (id, property_id, url, source, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    calendar: db.prepare<[string], CalendarRow>(`${CALENDAR_SELECT} WHERE c.id = ?`),
    calendars: db.prepare<[string | null, string | null, string | null, string | null], CalendarRow>(
      `${CALENDAR_SELECT} WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR c.property_id = ?)
       ORDER BY p.name, p.created_at, c.seq`,
    ),
    removeCalendar: db.prepare("DELETE FROM calendars WHERE id = ?"),
  };
  const now = () => new Date().toISOString();

  return {
    createOwner(name) {
      const owner = { id: newId("own"), name, createdAt: now() };
      q.insertOwner.run(owner.id, owner.name, owner.createdAt);
      return owner;
    },
    listOwners: () => q.owners.all().map(toOwner),
    getOwner: (id) => {
      const row = q.owner.get(id);
      return row && toOwner(row);
    },

    createToken({ ownerId, name, prefix, hash, expiresAt }) {
      const id = newId("tok");
      q.insertToken.run(id, ownerId, name, prefix, hash, now(), expiresAt?.toISOString() ?? null);
      return toToken(q.token.get(id)!);
    },
    listTokens: (ownerId) => q.tokens.all(ownerId ?? null, ownerId ?? null).map(toToken),
    findTokenByHash: (hash) => {
      const row = q.tokenByHash.get(hash);
      return row && toToken(row);
    },
    revokeToken: (id, at = new Date()) => q.revokeToken.run(at.toISOString(), id).changes > 0,
    touchToken: (id, at = new Date()) => void q.touchToken.run(at.toISOString(), id),

    createProperty(ownerId, name) {
      const id = newId("prp");
      q.insertProperty.run(id, ownerId, name, now());
      return toProperty(q.property.get(id)!);
    },
    listProperties: (ownerId) => q.properties.all(ownerId ?? null, ownerId ?? null).map(toProperty),
    getProperty: (id) => {
      const row = q.property.get(id);
      return row && toProperty(row);
    },
    removeProperty: (id) => q.removeProperty.run(id).changes > 0,
    setPropertyFeedToken: (id, feedToken) => void q.setFeedToken.run(feedToken, id),
    getPropertyByFeedToken: (feedToken) => {
      const row = q.propertyByFeedToken.get(feedToken);
      return row && toProperty(row);
    },

    createCalendar({ propertyId, url, source }: { propertyId: string; url: string; source: CalendarSource }) {
      const id = newId("cal");
      q.insertCalendar.run(id, propertyId, url, source, now());
      return toCalendar(q.calendar.get(id)!);
    },
    listCalendars: (filter = {}) => {
      const { ownerId = null, propertyId = null } = filter;
      return q.calendars.all(ownerId, ownerId, propertyId, propertyId).map(toCalendar);
    },
    getCalendar: (id) => {
      const row = q.calendar.get(id);
      return row && toCalendar(row);
    },
    removeCalendar: (id) => q.removeCalendar.run(id).changes > 0,
  };
}
