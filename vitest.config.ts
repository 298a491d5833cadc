import { defineConfig } from "vitest/config";

// The machine's time zone must never move a night (CONTRACT §8): the nights tests run again in
// worker processes whose TZ is 13 hours ahead of UTC and 8 behind (Node applies TZ when it is set).
const MACHINE_ZONES = ["Pacific/Auckland", "America/Los_Angeles"];

export default defineConfig({
  test: {
    // One PostgreSQL for the run, for the store suite and the multi-instance tests (see the file).
    globalSetup: ["test/setup/postgres.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: "calsync", include: ["test/**/*.test.ts"] } },
      ...MACHINE_ZONES.map((zone) => ({
        extends: true as const,
        test: { name: `TZ=${zone}`, include: ["test/nights*.test.ts"], env: { TZ: zone } },
      })),
    ],
  },
});
