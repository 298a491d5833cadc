// docs/sdk.md's "Read and write" example: list, ask, book, and read a refusal.
import { ConflictError, createClient } from "calsync";

const client = createClient({ apiKey: process.env.CALSYNC_API_KEY, baseURL: "http://127.0.0.1:8787" });

// Every property of the token's owner, page after page: the next page is fetched when the loop gets there.
for await (const property of client.properties.list()) console.log(property.id, property.name);

const propertyId = process.argv[2] ?? "prp_…";
const { nights } = await client.properties.availability(propertyId, { from: "2027-03-01", to: "2027-04-01" });
console.log("taken:", nights.filter((night) => !night.available).map((night) => night.date));

try {
  const stay = await client.reservations.create(
    propertyId,
    { kind: "booking", arrival: "2027-03-12", departure: "2027-03-15", summary: "Ana (phone)" },
    { idempotencyKey: "order-1042" }, // the same order sent twice books once
  );
  console.log("booked", stay.id, stay.warnings ?? []);
} catch (error) {
  if (!(error instanceof ConflictError)) throw error;
  for (const c of error.conflicts) console.error(`taken by ${c.source}: ${c.arrival} → ${c.departure} (${c.reservationId})`);
}
