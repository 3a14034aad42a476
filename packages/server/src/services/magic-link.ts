import { randomBytes } from 'node:crypto';
import { ERROR_CODES, LIMITS } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { Transactor } from '../store/queryable.js';
import { magicLinksStore } from '../store/magic-links.js';
import { type AccountRow, findOrCreateAccount, normalizeEmail } from './accounts.js';
import type { JwtService } from './jwt.js';
import { MailDeliveryError, type Mailer } from './mailer.js';
import type { RateLimiter } from './rate-limit.js';
import { sha256Hex } from '../domain/ids.js';

const TTL_MS = LIMITS.magicLinkTtlMinutes * 60_000;
const RATE_WINDOW_MS = LIMITS.magicLinkRate.windowMinutes * 60_000;

export interface SignIn {
  account: AccountRow;
  jwt: string;
  /** Same-origin path the landing page continues to, when the sign-in started there. */
  next: string | null;
}

export interface MagicLinkDeps {
  db: Transactor;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  jwt: JwtService;
  rateLimiter: RateLimiter;
  baseUrl(): string;
}

export interface MagicLinkService {
  /**
   * Rate-limits (per email and per IP, counters shared in the database), stores the token's hash
   * and mails the link. The same happens whether or not an account exists for the address.
   */
  request(rawEmail: string, ip: string, next: string | null): Promise<void>;
  /** Consumes the token (single use, atomically) and signs in, creating the account on first use; null if invalid. */
  verify(token: string): Promise<SignIn | null>;
  /** Who a still-usable link signs in and where it continues, without using it; null if invalid. */
  peek(token: string): Promise<{ email: string; next: string | null } | null>;
}

export function createMagicLinkService({
  db,
  clock,
  logger,
  mailer,
  jwt,
  rateLimiter,
  baseUrl,
}: MagicLinkDeps): MagicLinkService {
  return {
    async request(rawEmail, ip, next) {
      const email = normalizeEmail(rawEmail);
      const token = randomBytes(32).toString('base64url');
      const tokenHash = sha256Hex(token);
      const now = clock.now();
      const buckets = [
        // The address is hashed so the counters table holds no emails.
        { key: `magic-link:email:${sha256Hex(email)}`, limit: LIMITS.magicLinkRate.perEmail, windowMs: RATE_WINDOW_MS },
        { key: `magic-link:ip:${ip}`, limit: LIMITS.magicLinkRate.perIp, windowMs: RATE_WINDOW_MS },
      ];
      await db.tx(async (q) => {
        await rateLimiter.takeAll(buckets, q);
        await magicLinksStore.deleteExpired(q, now);
        await rateLimiter.sweep('magic-link:', RATE_WINDOW_MS, q);
        await magicLinksStore.insert(q, { tokenHash, email, nextPath: next, now, expiresAt: now + TTL_MS });
      });
      const link = `${baseUrl()}/auth/verify?token=${token}`;
      try {
        await mailer.send({
          to: email,
          subject: 'Your Axle sign-in link',
          text: `Sign in to Axle by opening this link within ${LIMITS.magicLinkTtlMinutes} minutes:\n\n${link}\n\nIf you did not ask for it, ignore this message.\n`,
          html: `<p>Sign in to Axle by opening this link within ${LIMITS.magicLinkTtlMinutes} minutes:</p><p><a href="${link}">Sign in</a></p><p>If you did not ask for it, ignore this message.</p>`,
        });
      } catch (err) {
        // Undelivered, the request costs nothing: the link is withdrawn and the quota given back.
        await db.tx(async (q) => {
          await magicLinksStore.delete(q, tokenHash);
          await rateLimiter.refund(buckets, q);
        });
        if (err instanceof MailDeliveryError)
          throw new DomainError(ERROR_CODES.MAIL_UNAVAILABLE, 'Could not send the sign-in email; try again later');
        throw err;
      }
      // With no mail server (embedded dev mode) the operator needs the link; over SMTP it is never logged.
      if (mailer.kind === 'outbox') logger.info({ link }, 'magic link written to outbox (no AXLE_SMTP_URL)');
      else logger.info('magic link sent');
    },

    async verify(token) {
      const now = clock.now();
      const signedIn = await db.tx(async (q) => {
        const link = await magicLinksStore.consume(q, sha256Hex(token), now);
        if (!link) return null;
        return { account: await findOrCreateAccount(q, link.email, now), next: link.next_path };
      });
      if (!signedIn || signedIn.account.deleted_at != null) return null;
      return { ...signedIn, jwt: await jwt.issue(signedIn.account.id) };
    },

    async peek(token) {
      const link = await magicLinksStore.find(db, sha256Hex(token), clock.now());
      return link ? { email: link.email, next: link.next_path } : null;
    },
  };
}
