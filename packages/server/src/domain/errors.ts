/**
 * The one error type services throw. `code` is one of the sdk's ERROR_CODES; http/ maps it to a
 * status and renders `{error: message, code, request_id, ...details}`.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
