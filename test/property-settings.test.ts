// A property's turnover settings (CONTRACT §18): check-in and check-out times, buffer nights and cleaner
// addresses through PATCH /api/v1/properties/{id}, the SDK and `calsync property update`, on both stores;
// every bad input refused naming its field (422, exit 2) with nothing stored.
import { afterAll, describe, expect, it } from "vitest";
import { CalsyncClient, UnprocessableEntityError } from "../src/sdk/index.js";
import { runCli } from "./helpers/cli.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

const DEFAULTS = { checkInTime: "15:00", checkOutTime: "11:00", bufferNights: 0, cleanerEmails: [] };

describe.each(storeKinds())("property settings on $name", (kind: StoreKind) => {
  const { newStore, serve } = useServerFixtures(kind);

  it("shows the defaults, changes every setting through PATCH and the SDK, and refuses bad input naming the field", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const server = await serve(store);
    const loft = ann.propertyIds.Loft!;
    const patch = (body: unknown) =>
      fetch(`${server.url}/api/v1/properties/${loft}`, {
        method: "PATCH",
        headers: { "x-api-key": ann.token, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const read = async () => (await fetch(`${server.url}/api/v1/properties/${loft}`, { headers: { "x-api-key": ann.token } })).json();
    expect(await read()).toMatchObject(DEFAULTS);

    const changed = await patch({ checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 1, cleanerEmails: [" Cleo@Example.com ", "dan@example.org"] });
    expect(changed.status).toBe(200);
    const wanted = { checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 1, cleanerEmails: ["cleo@example.com", "dan@example.org"] };
    expect(await changed.json()).toMatchObject(wanted);

    const bad: Array<[unknown, string]> = [
      [{ checkInTime: "4pm" }, "checkInTime"],
      [{ checkOutTime: "24:00" }, "checkOutTime"],
      [{ checkInTime: "9:00" }, "checkInTime"],
      [{ bufferNights: 8 }, "bufferNights"],
      [{ bufferNights: -1 }, "bufferNights"],
      [{ bufferNights: 1.5 }, "bufferNights"],
      [{ bufferNights: "1" }, "bufferNights"],
      [{ cleanerEmails: ["a@x.com", "b@x.com", "c@x.com", "d@x.com", "e@x.com", "f@x.com"] }, "cleanerEmails"],
      [{ cleanerEmails: ["Cleo <cleo@example.com>"] }, "cleanerEmails"],
      [{ cleanerEmails: ["a@x.com, b@x.com"] }, "cleanerEmails"],
      [{ cleanerEmails: "cleo@example.com" }, "cleanerEmails"],
      [{ timeZone: "Mars/Olympus" }, "timeZone"],
      [{ name: "" }, "name"],
      [{ checkInTime: "16:00", color: "red" }, "color"],
      [{}, "body"],
    ];
    for (const [body, field] of bad) {
      const res = await patch(body);
      expect([res.status, ((await res.json()) as { error: unknown }).error]).toEqual([422, expect.objectContaining({ code: "invalid_request", field })]);
    }
    expect(await read()).toMatchObject(wanted);

    const client = new CalsyncClient({ baseURL: server.url, apiKey: ann.token, maxRetries: 0 });
    const viaSdk = await client.properties.update(loft, { name: "Sea Loft", timeZone: "Europe/Lisbon", bufferNights: 2, cleanerEmails: [] });
    expect(viaSdk).toMatchObject({ name: "Sea Loft", timeZone: "Europe/Lisbon", bufferNights: 2, cleanerEmails: [], checkInTime: "16:00" });
    await expect(client.properties.update(loft, { checkOutTime: "noon" })).rejects.toBeInstanceOf(UnprocessableEntityError);
    expect((await store.getProperty(loft))).toMatchObject({ checkOutTime: "10:00", bufferNights: 2 });

    const bob = await ownerWith(store, "Bob", { Barn: [] });
    const other = await fetch(`${server.url}/api/v1/properties/${loft}`, {
      method: "PATCH",
      headers: { "x-api-key": bob.token, "content-type": "application/json" },
      body: JSON.stringify({ bufferNights: 0 }),
    });
    expect(other.status).toBe(404);
    expect((await store.getProperty(loft))?.bufferNights).toBe(2);
  });
});

describe.each(storeKinds())("calsync property update on $name", (kind) => {
  afterAll(() => kind.dispose());

  const setUp = async () => {
    const env = { CALSYNC_DB: await kind.create() };
    expect((await runCli(["owner", "add", "Ann"], { env })).code).toBe(0);
    const { id } = JSON.parse((await runCli(["property", "add", "Loft", "--json"], { env })).stdout) as { id: string };
    return { env, id };
  };
  const listed = async (env: Record<string, string>) => (JSON.parse((await runCli(["property", "list", "--json"], { env })).stdout) as object[])[0];

  it("sets check-in, check-out, buffer nights and cleaners, and clears the cleaners", async () => {
    const { env, id } = await setUp();
    expect(await listed(env)).toMatchObject(DEFAULTS);
    const args = ["property", "update", id, "--check-in", "16:00", "--check-out", "10:00", "--buffer-nights", "1", "--cleaner-email", "cleo@example.com", "dan@example.org", "--json"];
    const result = await runCli(args, { env });
    expect(result.code).toBe(0);
    const wanted = { checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 1, cleanerEmails: ["cleo@example.com", "dan@example.org"] };
    expect(JSON.parse(result.stdout)).toMatchObject(wanted);
    expect(await listed(env)).toMatchObject(wanted);
    expect((await runCli(["property", "update", id, "--no-cleaner-email"], { env })).code).toBe(0);
    expect(await listed(env)).toMatchObject({ ...wanted, cleanerEmails: [] });
  });

  it.each([
    [["--check-in", "4pm"], "--check-in"],
    [["--check-out", "11:60"], "--check-out"],
    [["--buffer-nights", "8"], "--buffer-nights"],
    [["--buffer-nights", "one"], "--buffer-nights"],
    [["--cleaner-email", "a@x.com", "b@x.com", "c@x.com", "d@x.com", "e@x.com", "f@x.com"], "--cleaner-email"],
    [["--cleaner-email", "not-an-address"], "--cleaner-email"],
  ])("refuses %j with usage (exit 2) naming %s, storing nothing", async (flags, flag) => {
    const { env, id } = await setUp();
    const result = await runCli(["property", "update", id, "--check-in", "17:00", ...flags], { env });
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr).toContain(`error: ${flag}: `);
    expect(result.stderr).toContain("(run 'calsync property update --help' for usage)");
    expect(await listed(env)).toMatchObject(DEFAULTS);
  });
});
