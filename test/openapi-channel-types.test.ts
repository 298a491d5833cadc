// The channels answer (CONTRACT §17) in the OpenAPI document and the SDK's types are one truth: `npm run typecheck`
// compiles this file, and fails when a field, a null or a status differs between them.
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { describe, expect, it } from "vitest";
import * as schemas from "../src/server/openapi/channel-schemas.js";
import { openApiDocument } from "../src/server/openapi/document.js";
import type { Channel, ChannelList, ExposedNight } from "../src/sdk/index.js";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Same<A, B> = Equals<A, B> extends true ? true : { schemaGives: A; typesSay: B };
type Schema<S extends JSONSchema> = FromSchema<S>;

const checks = {
  Channel: true satisfies Same<Schema<typeof schemas.channelSchema>, Channel>,
  ChannelList: true satisfies Same<Schema<typeof schemas.channelListSchema>, ChannelList>,
  ExposedNight: true satisfies Same<Schema<typeof schemas.exposedNightSchema>, ExposedNight>,
};

describe("the channels schemas and the SDK's types", () => {
  it("are checked against each other at compile time, and the document serves the path", () => {
    expect(Object.values(checks).every(Boolean)).toBe(true);
    const paths = openApiDocument().paths as unknown as Record<string, { get: { responses: Record<string, unknown> } }>;
    const path = paths["/api/v1/properties/{id}/channels"]!;
    expect(Object.keys(path.get.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "404", "429"]));
  });
});
