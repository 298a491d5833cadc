// API v1's resource schemas (CONTRACT §14) and the SDK's resource types are one truth: `npm run typecheck`
// compiles this file, and fails when a field, an optionality, a null or an enum member differs between the
// document the server publishes and the types an app imports from the SDK.
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { describe, expect, it } from "vitest";
import * as schemas from "../src/server/openapi/resource-schemas.js";
import type {
  Availability,
  DirectStayCreate,
  DirectStayResult,
  DirectStayUpdate,
  NightsConflict,
  Property,
  PropertyCalendar,
  PropertyUpdate,
  RefreshWarning,
  Turnover,
  Reservation,
  ReservationSource,
} from "../src/sdk/index.js";

// True only when A and B are the same type (optional stays optional, a union keeps every member).
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Same<A, B> = Equals<A, B> extends true ? true : { schemaGives: A; typesSay: B };
// A request field with a `default` may be left out: the document's default is the server's, not a required field.
type Schema<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>;
// The document writes `warnings` with minItems 1 (left out when empty); the SDK types it as a plain array.
type Written = Omit<Schema<typeof schemas.writtenReservationSchema>, "warnings"> & { warnings?: RefreshWarning[] };

const checks = {
  Property: true satisfies Same<Schema<typeof schemas.propertySchema>, Property>,
  Turnover: true satisfies Same<Schema<typeof schemas.turnoverSchema>, Turnover>,
  PropertyUpdate: true satisfies Same<Schema<typeof schemas.propertyUpdateSchema>, PropertyUpdate>,
  PropertyCalendar: true satisfies Same<Schema<typeof schemas.propertyCalendarSchema>, PropertyCalendar>,
  Reservation: true satisfies Same<Schema<typeof schemas.reservationSchema>, Reservation>,
  ReservationSource: true satisfies Same<Schema<typeof schemas.RESOURCE_SCHEMAS.ReservationSource>, ReservationSource>,
  WrittenReservation: true satisfies Same<Written, DirectStayResult>,
  Availability: true satisfies Same<Schema<typeof schemas.availabilitySchema>, Availability>,
  DirectStayCreate: true satisfies Same<Schema<typeof schemas.directStayCreateSchema>, DirectStayCreate>,
  DirectStayUpdate: true satisfies Same<Schema<typeof schemas.directStayUpdateSchema>, DirectStayUpdate>,
  NightsConflict: true satisfies Same<Schema<typeof schemas.nightsConflictSchema>, NightsConflict>,
  RefreshWarning: true satisfies Same<Schema<typeof schemas.refreshWarningSchema>, RefreshWarning>,
};

describe("API v1 resource schemas and the SDK's types", () => {
  it("are checked against each other at compile time", () => {
    expect(Object.values(checks).every(Boolean)).toBe(true);
  });
});
