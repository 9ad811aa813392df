/** Seconds a client is told to wait (`Retry-After`) while the storage is unavailable. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * What the collector knows about its storage, from the outcome of every storage
 * call: available until a call fails with `StorageError`, unavailable until a
 * later call succeeds. Logs one line on each change (not one per refused
 * request) and counts the requests refused with 503 `storage-unavailable`
 * meanwhile. O(1) per call. A class because it is state.
 * @internal
 */
export class StorageHealth {
  readonly #backend: string;
  readonly #log: (line: string) => void;
  readonly #onChange: ((available: boolean, message: string) => void) | undefined;
  #downSince: number | undefined;
  #lastError = "";
  #refusedSinceDown = 0;
  /** Requests answered 503 `storage-unavailable` since start. */
  refused = 0;

  /** `log` gets each change's line; `onChange` (optional) the change itself (metrics, structured logs). */
  constructor(
    backend: string,
    log: (line: string) => void,
    onChange?: (available: boolean, message: string) => void,
  ) {
    this.#backend = backend;
    this.#log = log;
    this.#onChange = onChange;
  }

  #changed(available: boolean, line: string): void {
    this.#log(line);
    this.#onChange?.(available, line);
  }

  get available(): boolean {
    return this.#downSince === undefined;
  }

  /** The message of the failure that made the storage unavailable ("" when available). */
  get lastError(): string {
    return this.available ? "" : this.#lastError;
  }

  /** A storage call succeeded. */
  succeeded(): void {
    if (this.#downSince === undefined) return;
    const seconds = (Date.now() - this.#downSince) / 1000;
    this.#changed(
      true,
      `collector: storage (${this.#backend}) available again after ${seconds.toFixed(1)} s; ${this.#refusedSinceDown} requests were answered 503 storage-unavailable meanwhile`,
    );
    this.#downSince = undefined;
    this.#refusedSinceDown = 0;
  }

  /** A storage call failed with `message`; `refused`: the request was answered 503. */
  failed(message: string, refused: boolean): void {
    if (refused) {
      this.refused++;
      this.#refusedSinceDown++;
    }
    this.#lastError = message;
    if (this.#downSince !== undefined) return;
    this.#downSince = Date.now();
    this.#changed(
      false,
      `collector: storage (${this.#backend}) unavailable: ${message}; answering 503 storage-unavailable (Retry-After: ${RETRY_AFTER_SECONDS}) until it is back`,
    );
  }
}
