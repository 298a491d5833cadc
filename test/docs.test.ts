// The documentation is checked like code (CONTRACT §19): every ```ts block of README.md and docs/*.md
// typechecks as a module against the built package; every `calsync …` line of a shell block (and of a
// synopsis block) names a command the program has and only flags its --help lists; the README's first
// local sync and two-way-sync.md's import step run as written against a temp database and loopback feeds;
// every relative link and anchor resolves; the README stays a front door that links every guide.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBin } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { anchors, cliLines, codeBlocks, docFiles, inlineCliLines, relativeLinks, root, type CliLine, type DocBlock } from "./helpers/doc-blocks.js";
import { buildIcs, day } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures({ built: true });
const files = docFiles();
const blocks = files.flatMap(codeBlocks);

/** `node bin/calsync.js ...argv --help`, once per command path. */
const helps = new Map<string, Promise<string>>();
function help(argv: string[]): Promise<string> {
  const key = argv.join(" ");
  if (!helps.has(key)) {
    helps.set(
      key,
      runBin([...argv, "--help"]).then((result) => {
        if (result.code !== 0) throw new Error(`calsync ${key} --help exited ${result.code}: ${result.stderr}`);
        return result.stdout;
      }),
    );
  }
  return helps.get(key)!;
}

/** The lines of a help's section ("Options:", "Commands:") up to the next blank line. */
function section(text: string, title: string): string[] {
  const start = text.split("\n").indexOf(title);
  if (start < 0) return [];
  const rest = text.split("\n").slice(start + 1);
  return rest.slice(0, rest.findIndex((line) => line.trim() === "") >>> 0);
}
const subcommands = (text: string) => new Set(section(text, "Commands:").map((line) => /^ {2}(\S+)/.exec(line)?.[1]).filter((name): name is string => !!name && name !== "help"));
// Options may be grouped under titles of their own ("Local sync (with --local):"): every line that starts
// with an option counts.
const options = (text: string) =>
  new Set(text.split("\n").flatMap((line) => (/^ {2}(-[^ ].*?)(?: <| \[| {2}|$)/.exec(line)?.[1] ?? "").split(/,\s*/).filter(Boolean)));

describe("TypeScript blocks", () => {
  const checked = blocks.filter((block) => block.lang === "ts" && block.info !== "nocheck");
  let dir: string;
  beforeAll(() => {
    // Inside the package, so `import … from "calsync"` resolves through package.json "exports" to the built
    // dist/ as it does for a user (as examples/tsconfig.json does).
    dir = mkdtempSync(path.join(root, ".docs-check-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are found: the README's and the guides' examples", () => {
    expect(checked.length).toBeGreaterThanOrEqual(5);
  });

  it("typecheck as modules against the package (strict, NodeNext), except the ones marked nocheck", async () => {
    const names = new Map<string, DocBlock>();
    checked.forEach((block, index) => {
      const name = `block-${index}.ts`;
      names.set(name, block);
      const code = /^\s*(import|export)\s/m.test(block.code) ? block.code : `${block.code}\nexport {};\n`;
      writeFileSync(path.join(dir, name), code);
    });
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noEmit: true, types: ["node"] }, include: ["*.ts"] }),
    );
    const output = await new Promise<string>((resolve) =>
      execFile(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { cwd: root }, (_error, stdout, stderr) =>
        resolve(stdout + stderr),
      ),
    );
    // Name each error by the document and line the block starts at.
    const located = output.replace(/block-\d+\.ts/g, (name) => `${names.get(name)!.file}:${names.get(name)!.line} (${name})`);
    expect(located).toBe("");
  }, 60_000);
});

describe("calsync lines", () => {
  /** What is wrong with each line: a command, sub-command or flag the program does not have. */
  async function problemsOf(lines: CliLine[]): Promise<string[]> {
    const top = await help([]);
    const commands = subcommands(top);
    const problems: string[] = [];
    for (const line of lines) {
      const where = `${line.file}:${line.line}: ${line.text}`;
      const command = line.words.find((word) => !word.startsWith("-"));
      if (command?.startsWith("<") || command === "…") continue; // `calsync <command> --help`: a placeholder
      if (command === undefined) {
        for (const flag of line.words) if (!options(top).has(flag)) problems.push(`${where}: no option ${flag}`);
        continue;
      }
      if (!commands.has(command)) {
        problems.push(`${where}: no command ${command}`);
        continue;
      }
      const path = [command];
      const subs = subcommands(await help(path));
      if (subs.size > 0) {
        const sub = line.words[line.words.indexOf(command) + 1];
        if (sub === "--help") continue;
        if (sub === undefined || !subs.has(sub)) {
          problems.push(`${where}: ${command} has no sub-command ${sub}`);
          continue;
        }
        path.push(sub);
      }
      const flags = options(await help(path));
      for (const word of line.words) {
        const flag = word.split("=")[0]!;
        if (word.startsWith("-") && !flags.has(flag)) problems.push(`${where}: calsync ${path.join(" ")} has no ${flag}`);
      }
    }
    return problems;
  }

  it("of shell and synopsis blocks name commands the program has, with only the flags their --help lists", async () => {
    const commands = subcommands(await help([]));
    const lines = blocks.filter((block) => ["sh", "bash", ""].includes(block.lang)).flatMap((block) => cliLines(block, commands));
    expect(lines.length).toBeGreaterThan(40);
    expect(await problemsOf(lines)).toEqual([]);
  }, 120_000);

  it("in the prose (`calsync property feed prp_… --rotate`) do too", async () => {
    const lines = files.flatMap(inlineCliLines);
    expect(lines.length).toBeGreaterThan(40);
    expect(await problemsOf(lines)).toEqual([]);
  }, 120_000);

  /**
   * Runs a block's calsync lines one after another with the built CLI on `env`; each https link becomes the
   * loopback feed `feedsFor` gives it, and `prp_…` the id the block's `property add` printed.
   */
  async function runBlock(block: DocBlock, env: Record<string, string>, feedFor: (link: string) => string): Promise<string[]> {
    let propertyId = "";
    const outputs: string[] = [];
    for (const line of cliLines(block, new Set())) {
      const argv = line.words.map((word) => (word.startsWith("https://") ? feedFor(word) : word === "prp_…" ? propertyId : word));
      const result = await runBin(argv, env);
      expect(result.code, `${block.file}:${line.line}: ${line.text}\n${result.stderr}`).toBe(0);
      if (argv[0] === "property" && argv[1] === "add") propertyId = /prp_\w+/.exec(result.stdout)?.[0] ?? "";
      outputs.push(result.stdout);
    }
    expect(propertyId, `${block.file}:${block.line}: property add printed no id`).toMatch(/^prp_/);
    return outputs;
  }
  const local = (name: string) => ({ CALSYNC_DB: tmp.db(name), CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" });

  it("of the README's first local sync run as written, on a temp database and a loopback feed", async () => {
    const block = codeBlocks("README.md").find((b) => b.code.includes("calsync sync --local") && b.code.includes("calsync owner add"));
    expect(block, "README.md has no first-local-sync block").toBeDefined();
    const feed = feeds.url("/airbnb.ics", { body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]) });
    const outputs = await runBlock(block!, local("first-sync"), () => feed);
    expect(outputs.at(-2)).toMatch(/\b1\b/); // sync --local: the stay created
    expect(outputs.at(-1)).toContain(day(10)); // reservations: stored
  }, 60_000);

  it("of two-way-sync.md's first step run as written: both channels import, and a night sold twice is reported", async () => {
    const block = codeBlocks("docs/two-way-sync.md").find((b) => b.code.includes("--source booking") && b.code.includes("calsync sync --local"));
    expect(block, "docs/two-way-sync.md has no import block").toBeDefined();
    const env = local("two-way");
    expect((await runBin(["owner", "add", "Ana"], env)).code).toBe(0);
    const airbnb = feeds.url("/two-way-airbnb.ics", { body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]) });
    const booking = feeds.url("/two-way-booking.ics", { body: buildIcs([{ uid: "b1", start: day(12), end: day(14), summary: "CLOSED - Not available" }]) });
    await runBlock(block!, env, (link) => (link.includes("airbnb") ? airbnb : booking));
    const conflicts = JSON.parse((await runBin(["conflicts", "--json"], env)).stdout) as { from: string; to: string }[];
    expect(conflicts.map(({ from, to }) => [from, to])).toEqual([[day(12), day(13)]]);
  }, 60_000);
});

describe("links", () => {
  it("resolve: every relative link's file exists and every anchor is a heading there", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { target, line } of relativeLinks(file)) {
        const [file2, anchor] = target.split("#") as [string, string | undefined];
        const resolved = file2 === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), file2));
        if (!existsSync(path.join(root, resolved))) broken.push(`${file}:${line}: ${target} (no ${resolved})`);
        else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(resolved).has(anchor)) broken.push(`${file}:${line}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("README.md", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");

  it("is a front door of at most 400 lines that starts with the demo and the tests", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(400);
    expect(codeBlocks("README.md")[0]!.code).toMatch(/^npm install && npx calsync demo .*\nnpm test /);
  });

  it("links every guide under docs/", () => {
    for (const file of files.filter((name) => name.startsWith("docs/"))) expect(readme, file).toContain(`](${file})`);
  });
});
