// A calsync server as a `StaysBackend`, through the SDK. The resources' errors become the CLI's exit
// codes: 6 taken nights, 2 a value the server refused (422), 1 not found, read-only or cancelled, and the rest
// as remote `sync` has them (../remote-client.ts): 4 authentication or a missing scope, 5 network or server.
import { APIError, ConflictError, NotFoundError, UnprocessableEntityError, type Property } from "../../sdk/index.js";
import { CliFailure, EXIT, UsageError, type CliContext } from "../context.js";
import { apiMessage, connectRemote, type RemoteConnection, type RemoteOptions } from "../remote-client.js";
import { nightsTaken, stayRefused, type StaysBackend } from "./backend.js";

/** The server's backend for one command. */
export function remoteStaysBackend(options: RemoteOptions, context: CliContext): StaysBackend {
  const remote = connectRemote(options, context, "or use this machine's database with --local");
  const { client, signal } = remote;
  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      throw failureOf(error, remote);
    }
  };
  return {
    create: (propertyId, stay) => call(() => client.reservations.create(propertyId, stay, { signal })),
    update: (reservationId, changes) => call(() => client.reservations.update(reservationId, changes, { signal })),
    cancel: (reservationId) => call(() => client.reservations.cancel(reservationId, { signal })),
    availability: (propertyId, range) => call(() => client.properties.availability(propertyId, range, { signal })),
    // A token without the read scope may still write: its messages then give ids only.
    names: (propertyId) => client.properties.retrieve(propertyId, { signal }).then(
      (property) => ({ name: property.name, calendars: property.calendars }),
      () => undefined,
    ),
    turnovers: (query) =>
      call(async () => {
        const all = [];
        for await (const turnover of client.turnovers.list({ ...query, limit: 500 }, { signal })) all.push(turnover);
        return all;
      }),
    channels: (propertyId) =>
      call(async () => {
        const properties: Property[] = [];
        if (propertyId !== undefined) properties.push(await client.properties.retrieve(propertyId, { signal }));
        else for await (const p of client.properties.list({}, { signal })) properties.push(p);
        return Promise.all(
          properties.map(async (p) => ({ propertyId: p.id, propertyName: p.name, timeZone: p.timeZone, channels: (await client.properties.channels(p.id, { signal })).data })),
        );
      }),
  };
}

function failureOf(error: unknown, remote: RemoteConnection): unknown {
  const fail = (message: string, code: number) => new CliFailure(remote.hide(message), code);
  if (error instanceof ConflictError && error.code === "nights_unavailable") return nightsTaken(error.conflicts);
  // A calsync server's own 404 says what is missing; a 404 from something else falls through to the --base-url hint.
  if (error instanceof NotFoundError && error.code === "not_found") return fail(`not found: ${apiMessage(error)}`, EXIT.failure);
  // The server refused a value the user typed (a past stay, too many nights): a usage error, as a bad date is.
  // Refused for what the stay is (a cancelled one's `status`): exit 1, as the local database says it.
  if (error instanceof UnprocessableEntityError) {
    const field = fieldOf(error);
    if (field === undefined || TYPED.has(field)) return new UsageError(remote.hide(apiMessage(error)));
    return stayRefused(remote.hide(apiMessage(error)), field);
  }
  if (error instanceof ConflictError) return fail(`${apiMessage(error)} (${error.code})`, EXIT.failure);
  if (error instanceof APIError && error.status === 400) return fail(`${apiMessage(error)} (${error.code})`, EXIT.failure);
  return remote.failure(error);
}

// The request's fields the user typed as flags; a 422 on another one is about the stay, not the command line.
const TYPED = new Set(["arrival", "departure", "summary", "note", "kind", "from", "to"]);

// The error body's `field` (CONTRACT §2 error bodies name the field at fault on 400 and 422).
function fieldOf(error: APIError): string | undefined {
  const field = (error.body as { error?: { field?: unknown } } | undefined)?.error?.field;
  return typeof field === "string" ? field : undefined;
}
