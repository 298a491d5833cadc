// A run builds only the command it names; every other top-level command stands in from command-table.ts.
// These tests hold what that light program prints (help, usage errors, suggestions) to what the whole
// program, every command from its module, prints for the same words, so the table cannot drift.
import type { Command } from "@commander-js/extra-typings";
import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../src/cli/command-table.js";
import { createContext, EXIT } from "../src/cli/context.js";
import { buildProgram } from "../src/cli/program.js";
import { runCli, type CliResult } from "./helpers/cli.js";

/** `calsync ...argv` on the whole program, with run()'s exit codes (help 0, any other commander error 2). */
async function wholeProgram(argv: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const context = createContext({
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: false },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
    env: {},
  });
  let code: number = EXIT.ok;
  try {
    await (await buildProgram(context)).parseAsync(argv, { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } finally {
    await context.close();
  }
  return { code, stdout, stderr };
}

/** The words of every command of the whole program, sub-commands included: ["owner"], ["owner", "list"], … */
async function everyCommandPath(): Promise<string[][]> {
  const program = await buildProgram(createContext({ stdout: { write: () => true }, stderr: { write: () => true }, env: {} }));
  const paths: string[][] = [];
  const walk = (command: Command<any, any, any>, path: string[]) => {
    for (const sub of command.commands) {
      paths.push([...path, sub.name()]);
      walk(sub as Command<any, any, any>, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return paths;
}

describe("the help of a run that loads one command", () => {
  it.each(["--help", "-h", "help", ""])("calsync %s prints the whole program's help", async (words) => {
    const argv = words.split(" ").filter(Boolean);
    const light = await runCli(argv);
    expect(light).toEqual(await wholeProgram(argv));
    expect(light.stdout + light.stderr).toContain("Commands:");
  });

  it("calsync --version prints what the whole program prints", async () => {
    expect(await runCli(["--version"])).toEqual(await wholeProgram(["--version"]));
  });

  it("prints, for every command and sub-command, the whole program's --help and `help` of it", async () => {
    const paths = await everyCommandPath();
    expect(paths.length).toBeGreaterThan(COMMANDS.length);
    for (const path of paths) {
      const asked = [[...path, "--help"], ["help", ...path]];
      for (const argv of asked) expect({ argv, ...(await runCli(argv)) }).toEqual({ argv, ...(await wholeProgram(argv)) });
    }
  });

  it("lists each top-level command as its module describes it", async () => {
    const context = createContext({ stdout: { write: () => true }, stderr: { write: () => true }, env: {} });
    const modules = (await buildProgram(context)).commands;
    expect(modules.map((command) => command.name())).toEqual(COMMANDS.map((entry) => entry.name));
    for (const entry of COMMANDS) {
      const command = await entry.load(context);
      expect({ name: command.name(), description: command.description(), options: command.options.length > 0 }).toEqual({
        name: entry.name,
        description: entry.description,
        options: entry.options,
      });
    }
  });
});

describe("usage errors of a run that loads one command", () => {
  it.each(["syn", "ownr list", "owner lst", "--bogus", "--db x.db owner list", "sync --bogus", "owner add", "help nothing"])(
    "calsync %s exits 2 with the whole program's message",
    async (words) => {
      const argv = words.split(" ");
      const light = await runCli(argv);
      expect(light.code).toBe(EXIT.usage);
      expect(light).toEqual(await wholeProgram(argv));
    },
  );

  it("still suggests the command meant", async () => {
    const { code, stderr } = await runCli(["conflict"]);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain("unknown command 'conflict'");
    expect(stderr).toContain("(Did you mean conflicts?)");
  });
});
