import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LIMITS } from '@axle/sdk';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock.js';

const SESSION_SECONDS = LIMITS.sessionTokenHours * 3600;
const ALG = 'HS256';

export interface JwtService {
  /** A 24-hour session token whose subject is the account id. */
  issue(accountId: string): Promise<string>;
  /** The account id, or null for a token that is malformed, forged, expired or not HS256. */
  verify(token: string): Promise<string | null>;
}

/**
 * AXLE_JWT_SECRET when set; otherwise a secret generated on first start and kept in
 * `<dataDir>/jwt-secret` (mode 0600) so sessions survive restarts. Several instances must share
 * AXLE_JWT_SECRET instead.
 */
export function loadJwtSecret(configured: string | undefined, dataDir: string): Uint8Array {
  if (configured) return new TextEncoder().encode(configured);
  const file = path.join(dataDir, 'jwt-secret');
  try {
    // 'wx' fails if the file exists, so two processes starting at once keep the first secret.
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return new TextEncoder().encode(fs.readFileSync(file, 'utf8').trim());
}

export function createJwtService(secret: Uint8Array, clock: Clock): JwtService {
  return {
    async issue(accountId) {
      const iat = Math.floor(clock.now() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: ALG, typ: 'JWT' })
        .setSubject(accountId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + SESSION_SECONDS)
        .sign(secret);
    },
    async verify(token) {
      try {
        // Pinning the algorithm refuses `alg: none` and any asymmetric/HMAC confusion.
        const { payload } = await jwtVerify(token, secret, { algorithms: [ALG], currentDate: new Date(clock.now()) });
        return typeof payload.sub === 'string' && payload.exp !== undefined ? payload.sub : null;
      } catch {
        return null;
      }
    },
  };
}
