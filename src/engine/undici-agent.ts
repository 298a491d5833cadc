// undici's Agent alone. `import { Agent } from "undici"` loads the whole package (fetch, WebSocket, cache
// stores, mocks): 20 MiB of a process's memory and a tenth of a second at start, against 11 MiB for the
// agent and what it uses. A sync needs only the agent.
import { createRequire } from "node:module";
import type { Agent as UndiciAgent } from "undici";

const require = createRequire(import.meta.url);

function loadAgent(): typeof UndiciAgent {
  try {
    const agent = require("undici/lib/dispatcher/agent.js") as unknown;
    if (typeof agent === "function") return agent as typeof UndiciAgent;
  } catch {
    // An undici that moved its files: the whole package, below, as before.
  }
  return (require("undici") as typeof import("undici")).Agent;
}

/** undici's `Agent` class (the same class `undici` exports). */
export const Agent = loadAgent();
/** An undici `Agent`. */
export type Agent = UndiciAgent;
