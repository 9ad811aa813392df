import { CalmLdpError } from "@calm-ldp/errors";

export { InvalidParameterError } from "@calm-ldp/errors";

/** A request the collector refuses: HTTP `statusCode` and a machine-readable `reason`. */
export class RequestRejectedError extends CalmLdpError {
  override readonly name: string = "RequestRejectedError";
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The database failed (or refused) a write or read; the request may be retried. */
export class StorageError extends CalmLdpError {
  override readonly name: string = "StorageError";
}

/** The round is closed: it accepts no more reports (HTTP 409 `round-closed`). */
export class RoundClosedError extends CalmLdpError {
  override readonly name: string = "RoundClosedError";
  constructor(readonly round: string) {
    super(`round ${round} is closed: it accepts no more reports`);
  }
}

/** @internal Throws a {@link RequestRejectedError}. */
export function reject(statusCode: number, reason: string, message: string): never {
  throw new RequestRejectedError(statusCode, reason, message);
}
