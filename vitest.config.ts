import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL for the run, for the store suite and the multi-instance tests (see the file).
    globalSetup: ["test/setup/postgres.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
