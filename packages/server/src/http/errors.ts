import { ERROR_CODES } from '@axle/sdk';

/** The one error type routes and services throw; the error middleware renders `body` as JSON. */
export class HttpError extends Error {
  readonly body: Record<string, unknown>;
  constructor(
    readonly status: number,
    error: string,
    extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(error);
    this.body = { error, ...extra };
  }
}

export const badRequest = (error: string, extra?: Record<string, unknown>) =>
  new HttpError(400, error, { code: ERROR_CODES.VALIDATION, ...extra });
export const unauthorized = (error = 'Authentication required', extra?: Record<string, unknown>) =>
  new HttpError(401, error, { code: ERROR_CODES.UNAUTHORIZED, ...extra });
export const forbidden = (error: string, extra?: Record<string, unknown>) =>
  new HttpError(403, error, { code: ERROR_CODES.FORBIDDEN, ...extra });
export const notFound = (error = 'Not found', extra?: Record<string, unknown>) =>
  new HttpError(404, error, { code: ERROR_CODES.NOT_FOUND, ...extra });
export const conflict = (error: string, extra?: Record<string, unknown>) =>
  new HttpError(409, error, { code: ERROR_CODES.CONFLICT, ...extra });
