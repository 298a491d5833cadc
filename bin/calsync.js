#!/usr/bin/env node
// A thin launcher: the CLI lives in dist/ (built by `npm install` via prepare).
import module from "node:module";

// Node 22.1+ keeps V8's compiled code of every module on disk (in the OS temp directory, or where
// NODE_COMPILE_CACHE says), so a later start skips most of the compiling; Node 20 has no such cache.
module.enableCompileCache?.();

import("../dist/cli/main.js").then(
  (cli) => cli.main(),
  (error) => {
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/cli/main.js")) {
      console.error("calsync is not built yet: run `npm run build` in the package folder.");
      process.exitCode = 1;
    } else throw error;
  },
);
