import { DEVICE_TOKEN_ERRORS, ERROR_CODES, type ErrorCode } from '@axle/sdk';
import type { DomainError } from '../domain/errors.js';

type DeviceTokenErrorCode = (typeof DEVICE_TOKEN_ERRORS)[number];

/** The one table from error code to HTTP status. A code missing here does not compile. */
const STATUS: Record<ErrorCode | DeviceTokenErrorCode, number> = {
  [ERROR_CODES.VALIDATION]: 400,
  [ERROR_CODES.MALFORMED_JSON]: 400,
  [ERROR_CODES.NESTED_JSON]: 400,
  [ERROR_CODES.DUPLICATE_JSON_KEY]: 400,
  [ERROR_CODES.MALFORMED_REQUEST]: 400,
  [ERROR_CODES.CATEGORY_OUT_OF_SCOPE]: 400,
  [ERROR_CODES.AFFIRMATION_REQUIRED]: 400,
  [ERROR_CODES.UNAUTHORIZED]: 401,
  [ERROR_CODES.INVALID_API_KEY]: 401,
  [ERROR_CODES.FORBIDDEN]: 403,
  [ERROR_CODES.INSUFFICIENT_SCOPE]: 403,
  [ERROR_CODES.ACCOUNT_SUSPENDED]: 403,
  [ERROR_CODES.TERMS_NOT_ACCEPTED]: 403,
  [ERROR_CODES.NOT_FOUND]: 404,
  [ERROR_CODES.METHOD_NOT_ALLOWED]: 405,
  [ERROR_CODES.CONFLICT]: 409,
  [ERROR_CODES.PAYMENT_IDENTIFIER_CONFLICT]: 409,
  [ERROR_CODES.PAYMENT_IN_PROGRESS]: 409,
  [ERROR_CODES.DUPLICATE_LEARNING]: 409,
  [ERROR_CODES.NEAR_DUPLICATE_LEARNING]: 409,
  [ERROR_CODES.RETRACTION_WINDOW_EXPIRED]: 409,
  [ERROR_CODES.FLAGS_NOT_ACKNOWLEDGED]: 409,
  [ERROR_CODES.API_KEY_LIMIT]: 409,
  [ERROR_CODES.CONTRIBUTOR_NOT_ONBOARDED]: 409,
  [ERROR_CODES.WITHDRAWAL_IN_FLIGHT]: 409,
  [ERROR_CODES.WITHDRAWAL_SIGNATURE_USED]: 409,
  [ERROR_CODES.EXTRACTION_CLIENT_SIDE]: 410,
  [ERROR_CODES.REQUEST_TIMEOUT]: 408,
  [ERROR_CODES.PAYLOAD_TOO_LARGE]: 413,
  [ERROR_CODES.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ERROR_CODES.RATE_LIMITED]: 429,
  [ERROR_CODES.HEADERS_TOO_LARGE]: 431,
  // nginx's "client closed request": logged, never seen by the client that left.
  [ERROR_CODES.CLIENT_CLOSED_REQUEST]: 499,
  [ERROR_CODES.INTERNAL]: 500,
  [ERROR_CODES.MAIL_UNAVAILABLE]: 503,
  [ERROR_CODES.DATABASE_UNAVAILABLE]: 503,
  [ERROR_CODES.WITHDRAW_PAUSED]: 503,
  [ERROR_CODES.OPENCLAW_NOT_CONFIGURED]: 503,
  [ERROR_CODES.PAYMENT_REQUIRED]: 402,
  [ERROR_CODES.CREDITS_EXHAUSTED]: 402,
  [ERROR_CODES.PAYMENT_INVALID]: 402,
  [ERROR_CODES.SANCTIONS_BLOCKED]: 403,
  [ERROR_CODES.NOT_IMPLEMENTED]: 501,
  [ERROR_CODES.PROVIDER_UNAVAILABLE]: 502,
  [ERROR_CODES.SANCTIONS_UNAVAILABLE]: 503,
  [ERROR_CODES.PROVIDER_NOT_CONFIGURED]: 503,
  // RFC 8628 §3.5: every token-endpoint error is a 400.
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  access_denied: 400,
  invalid_grant: 400,
};

const isDeviceTokenError = (code: string): code is DeviceTokenErrorCode =>
  (DEVICE_TOKEN_ERRORS as readonly string[]).includes(code);

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Status, JSON body and headers for a DomainError. Token-endpoint errors keep RFC 8628's shape
 * `{error: code, error_description}` and are never cached; every other error is `{error, code, ...details}`.
 */
export function renderDomainError(err: DomainError): RenderedError {
  const status = STATUS[err.code as ErrorCode] ?? 500;
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  if (isDeviceTokenError(err.code)) {
    return {
      status,
      body: { error: err.code, error_description: err.message, ...err.details },
      headers: { ...headers, 'Cache-Control': 'no-store' },
    };
  }
  return { status, body: { error: err.message, code: err.code, ...err.details }, headers };
}

/** The HTTP status a DomainError is answered with. */
export const statusOf = (err: DomainError): number => renderDomainError(err).status;
