// listhen, held to what a server needs: the exact port asked for (or a clear error), no banner, no signal handlers.
import { createServer } from "node:net";
import type { RequestListener } from "node:http";
import type { Listener } from "listhen";
import { answerClientError } from "./client-error.js";

// Hosts listhen treats as local; it must be told `public` consistently or it rewrites the host.
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "::1"]);
// listhen silently falls back to "localhost" for names outside this pattern, so they are refused instead.
const HOST_PATTERN = /^(?!-)[\d.:A-Za-z-]{1,63}(?<!-)$/;
// get-port-please types the range as a pair, but an empty one is how it is switched off.
const NO_RANGE = [] as unknown as [number, number];

/** True when `host` is a name or address listhen will listen on as given. */
export function isValidHost(host: string): boolean {
  return HOST_PATTERN.test(host);
}

/** Listens on exactly `host:port` (0: any free port); a taken or refused port is an error, never another port. */
export async function listenExactly(handler: RequestListener, host: string, port: number): Promise<Listener> {
  if (!isValidHost(host)) throw new Error(`invalid host "${host}"`);
  // Loaded here rather than at the top, so `calsync serve`'s flag checks (isValidHost) stay light.
  const { listen } = await import("listhen");
  let listener: Listener;
  try {
    listener = await listen(handler, {
      hostname: host,
      // random only for 0; no alternative range: get-port-please then throws instead of moving elsewhere.
      port: { port, random: port === 0, alternativePortRange: NO_RANGE, verbose: false },
      public: !LOCAL_HOSTS.has(host),
      baseURL: "/",
      showURL: false,
      qr: false,
      open: false,
      clipboard: false,
      tunnel: false,
      autoClose: false,
      isProd: true,
      isTest: false,
    });
  } catch {
    // get-port-please only says "Unable to find a port"; ask the OS what is really wrong.
    throw new Error(`cannot listen on ${host}:${port}: ${await probe(host, port)}`);
  }
  // get-port-please also swaps ports it deems unsafe (e.g. 6000) for another one.
  if (port !== 0 && listener.address.port !== port) {
    await listener.close();
    throw new Error(`cannot listen on ${host}:${port}: the port is not allowed`);
  }
  // Requests Node's parser refuses get a JSON body like every other answer.
  listener.server.on("clientError", answerClientError);
  return listener;
}

// Why binding host:port fails, in words for people.
function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      const reasons: Record<string, string> = {
        EADDRINUSE: "the port is in use",
        EACCES: "permission denied (ports below 1024 usually need privileges)",
        EADDRNOTAVAIL: "this machine has no such address",
        ENOTFOUND: "unknown host",
        EAI_AGAIN: "unknown host",
      };
      resolve(reasons[error.code ?? ""] ?? error.message);
    });
    server.listen(port, host, () => server.close(() => resolve("the port is not allowed")));
  });
}
