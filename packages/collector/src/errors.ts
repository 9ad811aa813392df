/** A request the collector refuses: HTTP `statusCode` and a machine-readable `reason`. */
export class RequestRejectedError extends Error {
  override readonly name = "RequestRejectedError";
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** A collector option outside its domain (token too short, batch limit not a positive integer, ...). */
export class InvalidParameterError extends RangeError {
  override readonly name = "InvalidParameterError";
}

/** The database failed (or refused) a write or read; the request may be retried. */
export class StorageError extends Error {
  override readonly name = "StorageError";
}

/** @internal Throws a {@link RequestRejectedError}. */
export function reject(statusCode: number, reason: string, message: string): never {
  throw new RequestRejectedError(statusCode, reason, message);
}
