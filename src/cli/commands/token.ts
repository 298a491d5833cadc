// `calsync token create|list|revoke`: API tokens of an owner. The plain token is shown once, at creation.
import { Command } from "@commander-js/extra-typings";
import { TOKEN_SCOPES, type TokenScope } from "../../resource-types.js";
import type { TokenRecord } from "../../store/types.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { parseDuration } from "../duration.js";
import { dbOption, jsonOption, ownerOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable, formatTime } from "../table.js";

/** A listed token: everything but the secret (which the store does not have) and its hash. */
export function tokenJson(token: TokenRecord) {
  return {
    id: token.id,
    ownerId: token.ownerId,
    name: token.name,
    prefix: token.prefix,
    createdAt: token.createdAt,
    expiresAt: token.expiresAt,
    revokedAt: token.revokedAt,
    lastUsedAt: token.lastUsedAt,
    scopes: token.scopes,
  };
}

/** `--scope read,write` → the scopes, in documentation order; a usage error names an unknown one. */
export function parseScopes(value: string): TokenScope[] {
  const given = value.split(",").map((scope) => scope.trim().toLowerCase()).filter((scope) => scope !== "");
  const unknown = given.find((scope) => !(TOKEN_SCOPES as readonly string[]).includes(scope));
  if (unknown !== undefined) throw new UsageError(`--scope: unknown scope "${unknown}" (use ${TOKEN_SCOPES.join(", ")})`);
  if (given.length === 0) throw new UsageError(`--scope is empty: give one or more of ${TOKEN_SCOPES.join(", ")}`);
  return TOKEN_SCOPES.filter((scope) => given.includes(scope));
}

/** The longest `--expires-in`, in days. */
const MAX_LIFETIME_DAYS = 36_500;

/** Builds the `token` command group. */
export function tokenCommand(context: CliContext) {
  const token = new Command("token").description("Create, list and revoke API tokens (for `calsync sync` and the HTTP API)");

  token
    .command("create")
    .description("Create an API token; it is printed once and cannot be shown again")
    .addOption(ownerOption())
    .option("--name <name>", "a name to recognise the token by", "default")
    .option("--expires-in <duration>", "lifetime such as 30s, 15m, 12h or 90d (default: never expires)")
    .option("--scope <scopes>", "what the token may do, comma-separated: sync (POST /calendars/sync), read (GET routes), write (direct stays) (default: all three)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      // The dashboard asks for a name too: a token nobody can recognise in the list cannot be revoked with confidence.
      const name = options.name.trim();
      if (!name) throw new UsageError("--name is empty");
      const lifetimeMs = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn);
      // Past that, a date is no longer one both stores keep (PostgreSQL ends at year 9999) or JavaScript can write.
      if (lifetimeMs !== undefined && lifetimeMs > MAX_LIFETIME_DAYS * 86_400_000) {
        throw new UsageError(`--expires-in ${options.expiresIn} is too long: at most ${MAX_LIFETIME_DAYS}d (100 years), or leave it out for none`);
      }
      const scopes = options.scope === undefined ? [...TOKEN_SCOPES] : parseScopes(options.scope);
      const store = await context.store(options.db);
      const owner = await context.owner(store, options.owner);
      const { generateToken } = await import("../../server/tokens.js");
      const generated = generateToken();
      const record = await store.createToken({
        ownerId: owner.id,
        name,
        prefix: generated.prefix,
        hash: generated.hash,
        expiresAt: lifetimeMs === undefined ? null : new Date(Date.now() + lifetimeMs),
        scopes,
      });
      if (options.json) {
        return writeJson(context, { id: record.id, token: generated.token, name: record.name, expiresAt: record.expiresAt, scopes: record.scopes });
      }
      // Only the token on stdout, so `TOKEN=$(calsync token create)` works; the note goes to stderr.
      writeText(context, generated.token);
      const expiry = record.expiresAt ? `, expires ${formatTime(record.expiresAt)}` : "";
      context.logger.warn(
        `Token ${record.id} "${record.name}" for ${owner.name}${expiry}. Copy it now: it will not be shown again.`,
      );
    });

  token
    .command("list")
    .description("List API tokens (never the tokens themselves)")
    .addOption(ownerOption("only this owner's tokens (id or name; default: every owner)"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const store = await context.store(options.db);
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const tokens = await store.listTokens(ownerId);
      if (options.json) return writeJson(context, tokens.map(tokenJson));
      if (tokens.length === 0) return context.logger.info("No tokens yet. Create one with: calsync token create");
      const owners = new Map((await store.listOwners()).map((o) => [o.id, o.name]));
      const now = Date.now();
      const rows = tokens.map((t) => [
        t.id,
        `${t.prefix}…`,
        t.name,
        owners.get(t.ownerId) ?? t.ownerId,
        t.scopes.join(","),
        formatTime(t.createdAt),
        t.expiresAt ? `${formatTime(t.expiresAt)}${Date.parse(t.expiresAt) <= now ? " (expired)" : ""}` : "never",
        formatTime(t.revokedAt),
        formatTime(t.lastUsedAt),
      ]);
      const headers = ["ID", "PREFIX", "NAME", "OWNER", "SCOPES", "CREATED", "EXPIRES", "REVOKED", "LAST USED"];
      writeText(context, formatTable(headers.map((header) => ({ header })), rows, stdoutPaint(context)));
    });

  token
    .command("revoke")
    .description("Revoke an API token at once")
    .argument("<id>", "token id (see: calsync token list)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (id, options) => {
      const store = await context.store(options.db);
      const before = (await store.listTokens()).find((t) => t.id === id);
      if (!before) throw new CliFailure(`no token "${id}" (see: calsync token list)`, 1);
      if (!before.revokedAt) await store.revokeToken(id);
      const after = (await store.listTokens()).find((t) => t.id === id) ?? before;
      if (options.json) return writeJson(context, tokenJson(after));
      const when = before.revokedAt ? `was already revoked on ${formatTime(before.revokedAt)}` : "is revoked";
      writeText(context, `Token ${after.id} "${after.name}" (${after.prefix}…) ${when}.`);
    });

  return token;
}
