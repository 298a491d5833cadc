#!/usr/bin/env node
// A thin launcher: the CLI lives in dist/ (built by `npm install` via prepare).
import("../dist/cli/main.js").then(
  (cli) => cli.main(),
  (error) => {
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/cli/main.js")) {
      console.error("calsync is not built yet: run `npm run build` in the package folder.");
      process.exitCode = 1;
    } else throw error;
  },
);
