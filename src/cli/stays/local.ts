// This machine's database as a `StaysBackend` (`--local`, `--db`, `--owner`): the direct-stay service without a
// server. The store comes from the CLI context, the owner from the id a call names (or `--owner`), the calls are
// the ones the API routes make (src/resources), and the refresh before a check is the server's (the property's
// calendars under the owner's lease, joining a run already going on a server, cron or another instance; see
// resources/property-refresh.ts). Refusals become the exit codes the remote
// backend gives, so the commands, their output and exit codes stay the same whichever backend answers.
import type { ResourceContext, ResourceFailure, StayResult } from "../../resources/index.js";
import type { DirectStayResult } from "../../resource-types.js";
import { CliFailure, EXIT, UsageError, type CliContext } from "../context.js";
import { privateNetworksAllowed } from "../options.js";
import { nightsTaken, stayRefused, type StaysBackend } from "./backend.js";

/** Flags of the local database. */
export interface LocalStaysOptions {
  db?: string | undefined;
  owner?: string | undefined;
  /** Let the refresh fetch feeds on loopback and private addresses (else CALSYNC_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks?: boolean | undefined;
  /** Longest wait for the refresh before a check, in milliseconds. @default 8000 */
  refreshTimeoutMs?: number | undefined;
}

/** The local backend for one command: opens the database before any call; each call's owner is its id's. */
export async function localStaysBackend(options: LocalStaysOptions, context: CliContext): Promise<StaysBackend> {
  // Heavy imports at the edge of the mode that needs them (STYLE.md), as `sync --local` loads them.
  const resources = await import("../../resources/index.js");
  const { createPropertyRefresh } = await import("../../resources/property-refresh.js");
  const store = await context.store(options.db);
  const allowPrivateNetworks = privateNetworksAllowed(options.allowPrivateNetworks, context.io.env);
  let ownerName = "";
  const onWait = () => context.logger.info(`another sync of ${ownerName} is running (a server, cron or another instance); joining it`);
  const ctx: ResourceContext = {
    store,
    refresh: createPropertyRefresh({ store, onWait, allowPrivateNetworks, timeoutMs: options.refreshTimeoutMs }),
  };
  // An id names its owner (CONTRACT §6): --owner is needed only to choose one, and then the id must be theirs.
  const ownerOf = async (kind: "property" | "reservation", id: string): Promise<string> => {
    const owner = options.owner !== undefined ? await context.owner(store, options.owner) : await ownerNamedBy(kind, id);
    ownerName = owner.name;
    return owner.id;
  };
  const ownerNamedBy = async (kind: "property" | "reservation", id: string) => {
    const ownerId = kind === "property" ? (await store.getProperty(id))?.ownerId : (await store.getReservation(id))?.ownerId;
    const owner = ownerId === undefined ? undefined : await store.getOwner(ownerId);
    // An id that names nothing is not found, whoever asks: there is no owner to choose.
    if (!owner) throw new CliFailure(`not found: no such ${kind} "${id}"`, EXIT.failure);
    return owner;
  };
  return {
    create: async (propertyId, stay) => stayOf(await resources.createDirectStay(ctx, { ownerId: await ownerOf("property", propertyId), propertyId, body: stay })),
    update: async (reservationId, changes) =>
      stayOf(await resources.updateDirectStay(ctx, { ownerId: await ownerOf("reservation", reservationId), reservationId, body: changes })),
    cancel: async (reservationId) => stayOf(await resources.cancelDirectStay(ctx, { ownerId: await ownerOf("reservation", reservationId), reservationId })),
    availability: async (propertyId, range) => {
      const query = { from: range.from, to: range.to };
      const answer = await resources.propertyAvailability(store, { ownerId: await ownerOf("property", propertyId), propertyId, query });
      if (!answer.ok) throw failureOf(answer);
      return answer.value;
    },
    names: async (propertyId) => {
      const property = await store.getProperty(propertyId);
      if (!property) return undefined;
      const calendars = await store.listCalendars({ propertyId });
      return { name: property.name, calendars: calendars.map((c) => ({ id: c.id, source: c.source })) };
    },
    turnovers: async ({ propertyId, from, to }) => {
      // One property's owner is the one its id names; every property's needs --owner, or a database of one owner.
      const ownerId = propertyId !== undefined ? await ownerOf("property", propertyId) : (await context.owner(store, options.owner)).id;
      const all = [];
      let cursor: string | undefined;
      do {
        const answer = await resources.listTurnovers(store, { ownerId, propertyId, query: { from, to, limit: "500", cursor } });
        if (!answer.ok) throw failureOf(answer);
        all.push(...answer.value.data);
        cursor = answer.value.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
    channels: async (propertyId) => {
      // One property's owner is the one its id names; every property's needs --owner, or a database of one owner.
      const ownerId = propertyId === undefined ? (await context.owner(store, options.owner)).id : await ownerOf("property", propertyId);
      // No server here to name its address: the links start as `calsync property feed` prints them.
      const feedBase = context.io.env.CALSYNC_BASE_URL?.trim() || "http://localhost:8787";
      const owned = (await store.listProperties(ownerId)).filter((p) => propertyId === undefined || p.id === propertyId);
      if (propertyId !== undefined && owned.length === 0) throw new CliFailure(`not found: no such property`, EXIT.failure);
      const now = new Date();
      return Promise.all(
        owned.map(async (p) => ({ propertyId: p.id, propertyName: p.name, timeZone: p.timeZone, channels: await resources.channelsOf(store, p, { feedBase, now }) })),
      );
    },
  };
}

// The stay as the API's JSON answer carries it (the Reservation, with `warnings` when there are some).
function stayOf(result: StayResult): DirectStayResult {
  if (!result.ok) throw failureOf(result);
  return { ...result.reservation, ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}) };
}

// Fields the user typed as flags are named as flags.
const FLAGS = new Set(["arrival", "departure", "summary", "note", "from", "to"]);

function failureOf(f: ResourceFailure): Error {
  if (f.code === "nights_unavailable") return nightsTaken(f.conflicts ?? []);
  // A value the user typed that the service refused (a past stay, too many nights, a bad range): a usage error.
  if ((f.status === 422 || f.status === 400) && (!f.field || FLAGS.has(f.field))) {
    const reason = f.field && f.message.startsWith(`${f.field}: `) ? f.message.slice(f.field.length + 2) : f.message;
    return new UsageError(f.field ? `--${f.field}: ${reason}` : reason);
  }
  // Refused for what the stay is, not for what was typed (a cancelled stay's `status`): exit 1, no usage hint.
  if (f.status === 422) return stayRefused(f.message, f.field);
  if (f.status === 404) return new CliFailure(`not found: ${f.message}`, EXIT.failure);
  return new CliFailure(`${f.message} (${f.code})`, EXIT.failure);
}
