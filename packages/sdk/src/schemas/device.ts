import { z } from '../zod.js';

/** RFC 8628 device authorization grant, as used by `axle login` and `axle setup`. */
export const DEVICE_AUTH = {
  /** Consonants only: no vowels (no words), no 0/O or 1/I confusion. */
  userCodeAlphabet: 'BCDFGHJKLMNPQRSTVWXZ',
  userCodeLength: 8,
  expiresInSeconds: 600,
  intervalSeconds: 5,
  /** RFC 8628 §3.5: slow_down adds 5 seconds to the polling interval. */
  slowDownStepSeconds: 5,
  /** Failed user-code lookups per IP in the window before 429. */
  failedLookups: { perIp: 10, windowMinutes: 15 },
  /** New device codes per IP in the same window (keeps the table from being flooded). */
  startsPerIp: 30,
  grantType: 'urn:ietf:params:oauth:grant-type:device_code',
} as const;

export const DEVICE_TOKEN_ERRORS = [
  'authorization_pending',
  'slow_down',
  'expired_token',
  'access_denied',
  'invalid_grant',
] as const;

/** POST /auth/device/code. */
export const DeviceCodeRequest = z
  .object({
    client_name: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'shown to the person approving, e.g. "axle CLI on laptop"; control and bidirectional-formatting characters are removed',
      ),
  })
  .openapi('DeviceCodeRequest');
export type DeviceCodeRequest = z.infer<typeof DeviceCodeRequest>;

export const DeviceCodeResponse = z
  .object({
    device_code: z.string().describe('secret; only the client that asked holds it'),
    user_code: z.string().regex(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
    verification_uri: z.string().url(),
    verification_uri_complete: z.string().url(),
    expires_in: z.number().int().positive(),
    interval: z.number().int().positive(),
  })
  .openapi('DeviceCodeResponse');
export type DeviceCodeResponse = z.infer<typeof DeviceCodeResponse>;

/** POST /auth/device/token. */
export const DeviceTokenRequest = z
  .object({
    device_code: z.string().min(1),
    grant_type: z.literal(DEVICE_AUTH.grantType).optional(),
  })
  .openapi('DeviceTokenRequest');
export type DeviceTokenRequest = z.infer<typeof DeviceTokenRequest>;

export const DeviceTokenResponse = z
  .object({
    api_key: z.string().startsWith('axl_').describe('returned exactly once; the server keeps only its hash afterwards'),
    account_id: z.string(),
    email: z.string().email(),
  })
  .openapi('DeviceTokenResponse');
export type DeviceTokenResponse = z.infer<typeof DeviceTokenResponse>;

export const DeviceTokenError = z
  .object({
    error: z.enum(DEVICE_TOKEN_ERRORS),
    error_description: z.string(),
    interval: z.number().int().positive().optional().describe('on slow_down: the new polling interval in seconds'),
  })
  .passthrough()
  .openapi('DeviceTokenError');
export type DeviceTokenError = z.infer<typeof DeviceTokenError>;
