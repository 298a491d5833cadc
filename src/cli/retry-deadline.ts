// `sync --timeout` and a server that asks to wait: a 429 (or 503) whose Retry-After outlasts what is
// left of the deadline would only sleep into it and end as "no answer in time". The CLI stops at once
// and says what the server asked for instead.
import type { FetchLike } from "../sdk/options.js";
import { isRetryableStatus, retryAfterMs } from "../sdk/retry.js";

/** The server asked for a wait that ends after the deadline. */
export class WaitBeyondDeadline extends Error {
  override name = "WaitBeyondDeadline";
}

/**
 * For `--timeout MS`: the signal that ends the whole call (attempts and waits), and a fetch that ends it
 * at once, with `WaitBeyondDeadline`, when an answer asks to wait past it. Nothing without a timeout.
 */
export function callDeadline(timeoutMs: number | undefined): { signal?: AbortSignal; fetch?: FetchLike } {
  if (timeoutMs === undefined) return {};
  const deadlineAt = Date.now() + timeoutMs;
  const stop = new AbortController();
  const fetchWithin: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    const wait = isRetryableStatus(response.status) ? retryAfterMs(response.headers) : undefined;
    if (wait !== undefined && Date.now() + wait > deadlineAt) {
      const reason = response.status === 429 ? "is rate limiting this API key (429)" : `answered ${response.status}`;
      const asked = `asked to wait ${Math.ceil(wait / 1000)} s, longer than --timeout ${timeoutMs} ms allows`;
      stop.abort(new WaitBeyondDeadline(`the server ${reason} and ${asked}; try again later`));
    }
    return response;
  };
  return { signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop.signal]), fetch: fetchWithin };
}
