/**
 * The one error type services, stores and http/ throw. `code` is one of the sdk's ERROR_CODES (or, on the device
 * token endpoint, one of DEVICE_TOKEN_ERRORS); http/error-status.ts maps it to a status at the edge and the error
 * middleware renders `{error: message, code, request_id, ...details}`.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** How long the caller should wait before trying again (the Retry-After header): rate limits, a payment in progress. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
