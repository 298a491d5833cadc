// The import graph of src/, read from the source text: which file imports which (types, re-exports and
// dynamic `import()` included: a type-only circle is still two files that cannot be read apart). TypeScript 7
// has no compiler API for JavaScript, so the imports are found by pattern; every relative specifier must
// resolve to a file, so a form the pattern misreads shows up as an unresolved import rather than a missing edge.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** File (relative to the root, `/`-separated) → the files it imports. */
export type ImportGraph = Map<string, Set<string>>;

// `import x from "…"`, `import type {…} from "…"`, `import "…"`, `export {…} from "…"`, `export * from "…"`, `import("…")`.
const IMPORT = /(?:^|[;}\s])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
const COMMENT = /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm;

/** The module specifiers `source` imports or re-exports, in order. */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(COMMENT, "");
  return [...code.matchAll(IMPORT)].map((match) => (match[1] ?? match[2])!);
}

/** Reads every .ts, .mts and .cts file under `dir` (relative to `root`) and the relative imports between them. */
export function readImportGraph(root: string, dir: string): { graph: ImportGraph; unresolved: string[] } {
  const files = (readdirSync(path.join(root, dir), { recursive: true }) as string[])
    .filter((file) => /\.[cm]?ts$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => path.posix.join(dir, file.split(path.sep).join("/")));
  const graph: ImportGraph = new Map();
  const unresolved: string[] = [];
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(readFileSync(path.join(root, file), "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      // Sources import each other by their output names: ./x.js is ./x.ts, ./x.cjs is ./x.cts.
      const target = path.posix.join(path.posix.dirname(file), specifier).replace(/\.([cm]?)js$/, ".$1ts");
      if (existsSync(path.join(root, target))) targets.add(target);
      else unresolved.push(`${file} → ${specifier}`);
    }
    graph.set(file, targets);
  }
  return { graph, unresolved };
}

/** Every circle of imports: the strongly connected components of more than one file, or a file importing itself. */
export function importCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm; src/ is a few hundred files, so recursion depth is no concern.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.has(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** `from → to` for every import of a file under `fromDir` of a file under `toDir`. */
export function importsAcross(graph: ImportGraph, fromDir: string, toDir: string): string[] {
  return [...graph]
    .filter(([file]) => file.startsWith(`${fromDir}/`))
    .flatMap(([file, targets]) => [...targets].filter((target) => target.startsWith(`${toDir}/`)).map((target) => `${file} → ${target}`))
    .sort();
}
