// Property names enter through `property add` and `property update --name`: a name too long for
// PostgreSQL's index on (owner_id, name) is a usage error on both stores, never a database error.
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_PROPERTY_NAME_LENGTH } from "../src/store/property-name.js";
import { runCli } from "./helpers/cli.js";
import { storeKinds } from "./helpers/stores.js";

// Random letters: a repeated character would compress under PostgreSQL's index limit and hide the problem. The
// first is a letter: base64url has "-", and a name starting with it is an option to the CLI (1 run in 64 failed).
const randomName = (length: number) => `N${randomBytes(length).toString("base64url").slice(0, length - 1)}`;

describe.each(storeKinds())("$name store", (kind) => {
  afterAll(() => kind.dispose());

  const setUp = async () => {
    const env = { CALSYNC_DB: await kind.create() };
    expect((await runCli(["owner", "add", "Ann"], { env })).code).toBe(0);
    return env;
  };
  const names = async (env: Record<string, string>) =>
    (JSON.parse((await runCli(["property", "list", "--json"], { env })).stdout) as { name: string }[]).map((p) => p.name);

  it("refuses a 10,000-character name at property add with usage (exit 2) and adds nothing", async () => {
    const env = await setUp();
    const result = await runCli(["property", "add", randomName(10_000)], { env });
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr).toMatch(/^error: the property's name is 10000 characters long; use at most 200\n/);
    expect(result.stderr).toContain("(run 'calsync property add --help' for usage)");
    expect(await names(env)).toEqual([]);
  });

  it("keeps a name of exactly the longest length, as written", async () => {
    const env = await setUp();
    const name = randomName(MAX_PROPERTY_NAME_LENGTH);
    expect((await runCli(["property", "add", name], { env })).code).toBe(0);
    expect(await names(env)).toEqual([name]);
  });

  it("refuses a 10,000-character --name at property update with usage (exit 2) and keeps the old name", async () => {
    const env = await setUp();
    const added = await runCli(["property", "add", "Sea View Loft", "--json"], { env });
    const { id } = JSON.parse(added.stdout) as { id: string };
    const result = await runCli(["property", "update", id, "--name", randomName(10_000)], { env });
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr).toMatch(/^error: --name: the property's name is 10000 characters long; use at most 200\n/);
    expect(result.stderr).toContain("(run 'calsync property update --help' for usage)");
    expect(await names(env)).toEqual(["Sea View Loft"]);
  });
});
