// Server log lines: one access line per request, plus events (listening, scheduled runs, faults), as text or JSON.

/** One request as the access log records it: never the token, never a feed URL, never the query string. */
export interface AccessLogLine {
  method: string;
  /** Path without the query string. */
  path: string;
  status: number;
  /** Time to answer, in whole milliseconds. */
  ms: number;
  requestId: string;
  /** The authenticated owner, or null when the request was not authenticated. */
  ownerId: string | null;
}

/** Writes server log lines in one format. */
export interface ServerLog {
  access(line: AccessLogLine): void;
  event(level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>): void;
}

/** Creates a log writing whole lines through `write`; `json` gives one JSON object per line for log shippers. */
export function createServerLog(options: { json?: boolean; write: (line: string) => void; now?: () => Date }): ServerLog {
  const now = options.now ?? (() => new Date());
  const emit = (record: Record<string, unknown>, text: string) =>
    options.write(options.json ? JSON.stringify({ time: now().toISOString(), ...record }) : text);
  return {
    access(line) {
      const owner = line.ownerId ? ` owner=${line.ownerId}` : "";
      emit(
        { level: "info", msg: "request", ...line },
        `${now().toISOString()} ${line.method} ${line.path} ${line.status} ${line.ms}ms id=${line.requestId}${owner}`,
      );
    },
    event(level, message, fields = {}) {
      const extra = Object.entries(fields)
        .map(([key, value]) => ` ${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
        .join("");
      emit({ level, msg: message, ...fields }, `${now().toISOString()} ${level.toUpperCase()} ${message}${extra}`);
    },
  };
}
