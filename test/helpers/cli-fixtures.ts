// Shared set-up of the CLI test files: a temp directory for their databases, a loopback feed server, and
// (for those that run bin/calsync.js) the check that dist/ holds the built CLI.
import { afterAll, beforeAll } from "vitest";
import { isBuilt, tempDir } from "./cli.js";
import { startFeedServer, type FeedServer } from "./feed-server.js";

/** Options of `useCliFixtures`. */
export interface CliFixturesOptions {
  /** Fail the file in beforeAll when dist/ is missing (the file runs the built CLI). @default false */
  built?: boolean;
}

/** What `useCliFixtures` gives a test file. */
export interface CliFixtures {
  /** The file's temp directory; removed after its tests. */
  tmp: ReturnType<typeof tempDir>;
  /** The file's feed server, started in beforeAll and closed in afterAll; usable from tests and hooks. */
  feeds: FeedServer;
}

/**
 * Registers the hooks of one CLI test file and returns its temp directory and feed server. `feeds`
 * stands for the server beforeAll starts, so it may be destructured at the top of the file. Call it
 * before the file's own hooks: vitest runs after-hooks in reverse, so the file's children and stores
 * are closed before this removes the directory.
 */
export function useCliFixtures(options: CliFixturesOptions = {}): CliFixtures {
  const tmp = tempDir();
  let server: FeedServer | undefined;
  const live = (): FeedServer => {
    if (!server) throw new Error("the feed server starts in beforeAll: use feeds in a test or a hook");
    return server;
  };

  beforeAll(async () => {
    if (options.built && !isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
    server = await startFeedServer();
  });
  afterAll(async () => {
    await server?.close();
    tmp.remove();
  });

  const feeds: FeedServer = {
    get baseUrl() {
      return live().baseUrl;
    },
    get requests() {
      return live().requests;
    },
    url: (path, spec) => live().url(path, spec),
    setRoute: (path, spec) => live().setRoute(path, spec),
    route: (path, spec) => live().route(path, spec),
    close: () => live().close(),
  };
  return { tmp, feeds };
}
