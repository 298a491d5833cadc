// What one call takes besides its own parameters.

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call, including a retry wait; the promise rejects with `AbortError`. */
  signal?: AbortSignal | undefined;
}

/** Per-call options of a write (create, update, cancel). */
export interface WriteOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`: the same key with the same body within 24 h gets the first answer
   * again and changes nothing; with another body, `UnprocessableEntityError`
   * (`idempotency_key_reused`). Give your own (an order id) to make a retry of yours safe too.
   * @default a fresh random key per call, reused by that call's automatic retries
   */
  idempotencyKey?: string | undefined;
}
