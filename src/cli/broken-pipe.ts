// A reader that goes away early (`calsync --help | head -1`) is not a failure of the command.

/** Codes a write to a stream whose reader has gone away fails with (the first one, then every later write). */
const GONE = new Set(["EPIPE", "ERR_STREAM_DESTROYED"]);

/**
 * Makes a closed reader of `stream` end its output quietly: later writes are dropped and the run ends
 * with its own exit code (Node ignores SIGPIPE and would crash on the EPIPE instead). Other errors still throw.
 */
export function ignoreBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (GONE.has(error.code ?? "")) return;
    throw error;
  });
}
