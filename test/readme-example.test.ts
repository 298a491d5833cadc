// The README's SDK example (examples/sdk-quickstart.ts) compiles against the published types and does
// what it says against a real server: `import ... from "calsync"` resolves as it would for a user.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiFixture, type ApiFixture } from "./helpers/api-fixture.js";
import { isBuilt } from "./helpers/cli.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const example = path.join(root, "examples/sdk-quickstart.ts");
const out = mkdtempSync(path.join(tmpdir(), "calsync-example-"));
const bundle = path.join(out, "sdk-quickstart.mjs");
const DEFAULT_ADDRESS = "http://127.0.0.1:8787";
let api: ApiFixture;

beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  api = await startApiFixture();
  // The example talks to the address `calsync serve` listens on by default; point it at the test server instead.
  const source = readFileSync(example, "utf8");
  expect(source).toContain(`"${DEFAULT_ADDRESS}"`);
  // "calsync" resolves through package.json "exports" (a package may import itself by name), i.e. dist/.
  await build({
    stdin: { contents: source.replaceAll(`"${DEFAULT_ADDRESS}"`, JSON.stringify(api.url)), resolveDir: path.dirname(example), loader: "ts" },
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "silent",
  });
});
afterAll(async () => {
  await api?.close();
  rmSync(out, { recursive: true, force: true });
});

/** Runs a program with node and only `env`; resolves with its exit code and output. */
function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: typeof error?.code === "number" ? error.code : error ? 1 : 0, stdout, stderr }),
    );
  });
}

describe("the README's SDK example", () => {
  it("typechecks against the package's own types (strict, NodeNext)", async () => {
    const result = await node([path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(root, "examples/tsconfig.json")]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("prints each calendar's outcome, with the failed one's error code, for a 207", async () => {
    const result = await node([bundle], { CALSYNC_API_KEY: api.tokens.someFailed });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Harbour Cottage airbnb success \nHarbour Cottage booking failed http_error\n");
  });

  it("reports a refused key by its reason instead of crashing", async () => {
    const result = await node([bundle], { CALSYNC_API_KEY: `cs_${"N".repeat(32)}` });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("token refused: invalid_token\n");
  });

  it("is the code block README.md shows, so the two cannot drift", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const shown = blocks.find((block) => block.includes('from "calsync"'));
    expect(shown, "README.md has no ```ts block importing from \"calsync\"").toBeDefined();
    const code = (text: string) =>
      text
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.startsWith("//"))
        .map((line) => line.trimEnd());
    expect(code(shown!)).toEqual(code(readFileSync(example, "utf8")));
  });

  it("shows examples/sdk-direct-stay.ts as the code of docs/sdk.md's 'Read and write'", () => {
    const guide = readFileSync(path.join(root, "docs/sdk.md"), "utf8");
    const blocks = [...guide.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const shown = blocks.find((block) => block.includes("client.reservations.create("));
    expect(shown, "docs/sdk.md has no ```ts block with client.reservations.create").toBeDefined();
    const code = (text: string) => text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("//")).map((line) => line.trimEnd());
    expect(code(shown!)).toEqual(code(readFileSync(path.join(root, "examples/sdk-direct-stay.ts"), "utf8")));
  });
});
