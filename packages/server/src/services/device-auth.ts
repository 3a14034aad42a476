import { randomBytes } from 'node:crypto';
import { DEVICE_AUTH, type DeviceCodeResponse, type DeviceTokenResponse, ERROR_CODES } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { formatUserCode, generateUserCode, normalizeUserCode } from '../domain/user-code.js';
import { open, publicKeyOf, seal } from '../domain/sealed-box.js';
import { DomainError } from '../domain/errors.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { type DeviceCodeRow, deviceCodesStore } from '../store/device-codes.js';
import { getAccount } from './accounts.js';
import { createKey } from './api-keys.js';
import { appendAudit } from './audit.js';
import { displayText } from '../domain/display-text.js';
import type { RateLimiter } from './rate-limit.js';
import type { AccountWriteLimiter } from './account-write-limits.js';
import { sha256Hex } from '../domain/ids.js';

const LIFETIME_MS = DEVICE_AUTH.expiresInSeconds * 1000;
const RATE_WINDOW_MS = DEVICE_AUTH.failedLookups.windowMinutes * 60_000;
/** Expired rows linger this long so a late poll still reads expired_token rather than invalid_grant. */
const EXPIRED_RETENTION_MS = 24 * 3600_000;
/**
 * A poll is too soon (slow_down) only when it comes more than this before the interval is up: the previous poll may
 * have been dated by another instance's clock, kept in step by NTP but not to the millisecond, and a client waiting
 * the whole interval would otherwise be slowed down each time its polls passed from an instance ahead to one behind.
 */
const POLL_TOLERANCE_MS = 1000;
const DEFAULT_CLIENT = 'Unknown client';
/** Code points of a client name shown on the approval page (the request schema bounds the raw text too). */
const CLIENT_NAME_MAX = 64;

/** RFC 8628 §3.5 token-endpoint errors (the code is one of DEVICE_TOKEN_ERRORS). */
const grantError = (error: string, description: string, extra: Record<string, unknown> = {}) =>
  new DomainError(error, description, extra);

/** What the approval page shows about a pending request. */
export interface PendingDevice {
  user_code: string;
  client_name: string;
  expires_at: number;
}

export interface DeviceAuthService {
  /** A new request from a client; at most DEVICE_AUTH.startsPerIp per IP per window (429). */
  start(clientName: string | undefined, ip: string): Promise<DeviceCodeResponse>;
  /** The CLI's poll. Resolves exactly once per approved code; every other outcome throws a 400 grant error. */
  poll(deviceCode: string): Promise<DeviceTokenResponse>;
  /** A signed-in person looks a code up. Failed lookups count against the IP (429 past the limit). */
  lookup(userCodeInput: string, ip: string): Promise<PendingDevice>;
  /**
   * Approve (mints an API key sealed to the device, counted like POST /account/api-keys against the
   * account's key-creation limit) or deny. Same lookup limits as above.
   */
  decide(
    userCodeInput: string,
    accountId: string,
    decision: 'approve' | 'deny',
    ip: string,
  ): Promise<{ audit_ref: string }>;
}

export interface DeviceAuthDeps {
  db: Transactor;
  clock: Clock;
  rateLimiter: RateLimiter;
  writeLimits: AccountWriteLimiter;
  baseUrl(): string;
}

export function createDeviceAuthService({
  db,
  clock,
  rateLimiter,
  writeLimits,
  baseUrl,
}: DeviceAuthDeps): DeviceAuthService {
  const bucket = (ip: string) => `device-user-code:ip:${ip}`;

  /**
   * Finds the pending row for what the person typed. An IP already at its failure limit is refused
   * before the lookup, so it cannot confirm a correct guess; a miss counts one failure.
   */
  async function findPending(q: Queryable, input: string, ip: string, now: number): Promise<DeviceCodeRow | undefined> {
    const key = bucket(ip);
    const rule = { limit: DEVICE_AUTH.failedLookups.perIp, windowMs: RATE_WINDOW_MS };
    // Already at the limit: counting this attempt puts it over, so take() throws 429.
    if ((await rateLimiter.used(key, rule, q)) >= rule.limit) await rateLimiter.take(key, rule, q);
    const code = normalizeUserCode(input);
    const row = code ? await deviceCodesStore.pendingByUserCode(q, code, now) : undefined;
    if (!row) await rateLimiter.take(key, rule, q);
    return row;
  }

  const unknownCode = () =>
    new DomainError(ERROR_CODES.NOT_FOUND, 'That code is not valid: it may be mistyped, expired or already used');

  /**
   * Runs a lookup in its own transaction so a miss's failure count commits even though the caller
   * then reports an error (a throw inside db.tx would roll the count back).
   */
  async function withPending<T>(
    input: string,
    ip: string,
    fn: (q: Queryable, row: DeviceCodeRow, now: number) => Promise<T>,
  ): Promise<T> {
    const result = await db.tx(async (q) => {
      const now = clock.now();
      const row = await findPending(q, input, ip, now);
      return row ? { value: await fn(q, row, now) } : undefined;
    });
    if (!result) throw unknownCode();
    return result.value;
  }

  return {
    async start(clientName, ip) {
      const deviceCode = randomBytes(32);
      const device_code = deviceCode.toString('base64url');
      const now = clock.now();
      const userCode = await db.tx(async (q) => {
        await rateLimiter.take(`device-code:ip:${ip}`, { limit: DEVICE_AUTH.startsPerIp, windowMs: RATE_WINDOW_MS }, q);
        await deviceCodesStore.deleteExpired(q, now - EXPIRED_RETENTION_MS);
        let code = generateUserCode();
        while (await deviceCodesStore.userCodeTaken(q, code)) code = generateUserCode();
        await deviceCodesStore.insert(q, {
          device_code_hash: sha256Hex(device_code),
          user_code: code,
          client_name: (clientName && displayText(clientName, CLIENT_NAME_MAX)) || DEFAULT_CLIENT,
          public_key: publicKeyOf(deviceCode).toString('base64url'),
          interval_s: DEVICE_AUTH.intervalSeconds,
          created_at: now,
          expires_at: now + LIFETIME_MS,
        });
        return formatUserCode(code);
      });
      const verification_uri = `${baseUrl()}/device`;
      return {
        device_code,
        user_code: userCode,
        verification_uri,
        verification_uri_complete: `${verification_uri}?user_code=${userCode}`,
        expires_in: DEVICE_AUTH.expiresInSeconds,
        interval: DEVICE_AUTH.intervalSeconds,
      };
    },

    async poll(deviceCode) {
      const hash = sha256Hex(deviceCode);
      const outcome = await db.tx(async (q) => {
        const now = clock.now();
        const row = await deviceCodesStore.byHash(q, hash);
        if (!row || row.status === 'delivered') {
          return grantError('invalid_grant', 'Unknown device_code, or its key was already handed out');
        }
        if (now >= row.expires_at) return grantError('expired_token', 'The device code expired; start again');
        if (row.status === 'denied') return grantError('access_denied', 'The request was denied');
        if (row.status === 'pending') {
          const tooSoon =
            row.last_polled_at !== null && now - row.last_polled_at < row.interval_s * 1000 - POLL_TOLERANCE_MS;
          const interval = tooSoon ? row.interval_s + DEVICE_AUTH.slowDownStepSeconds : row.interval_s;
          await deviceCodesStore.recordPoll(q, hash, now, interval);
          return tooSoon
            ? grantError('slow_down', `Polling too fast; wait ${interval} s between polls`, { interval })
            : grantError('authorization_pending', 'Waiting for the person to approve');
        }
        // approved: only the poll whose update flips it to delivered gets the key.
        if (!(await deviceCodesStore.markDelivered(q, hash)))
          return grantError('invalid_grant', 'The key was already handed out');
        const account = await getAccount(q, row.account_id!);
        if (!account) return grantError('invalid_grant', 'The approving account no longer exists');
        return {
          api_key: open(row.sealed_key!, Buffer.from(deviceCode, 'base64url')),
          account_id: account.id,
          email: account.email,
        };
      });
      if (outcome instanceof DomainError) throw outcome;
      return outcome;
    },

    lookup(input, ip) {
      return withPending(input, ip, async (_q, row) => ({
        user_code: formatUserCode(row.user_code),
        client_name: row.client_name,
        expires_at: row.expires_at,
      }));
    },

    decide(input, accountId, decision, ip) {
      return withPending(input, ip, async (q, row, now) => {
        const actor = `account:${accountId}`;
        if (decision === 'deny') {
          if (!(await deviceCodesStore.deny(q, row.device_code_hash, accountId, now))) throw unknownCode();
          return {
            audit_ref: await appendAudit(
              q,
              { actor, action: 'device.denied', subject: accountId, data: { client_name: row.client_name } },
              now,
            ),
          };
        }
        const account = await getAccount(q, accountId);
        if (!account || account.suspended) throw new DomainError(ERROR_CODES.ACCOUNT_SUSPENDED, 'Account suspended');
        await writeLimits.take('apiKeyCreate', accountId, q);
        const key = await createKey(q, accountId, { name: `device: ${row.client_name}` }, now);
        const sealedKey = seal(key.api_key, Buffer.from(row.public_key, 'base64url'));
        // A throw here rolls the key back with the rest of the transaction.
        if (!(await deviceCodesStore.approve(q, row.device_code_hash, { accountId, keyId: key.id, sealedKey, now })))
          throw unknownCode();
        const data = { client_name: row.client_name, key_id: key.id };
        return { audit_ref: await appendAudit(q, { actor, action: 'device.approved', subject: accountId, data }, now) };
      });
    },
  };
}
