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

/** Bytes a signing secret needs at least (AXLE_JWT_SECRET's 32 characters, and the stored file's). */
export const MIN_SECRET_BYTES = 32;

/**
 * AXLE_JWT_SECRET when set; otherwise a secret generated on first start and kept in
 * `<dataDir>/jwt-secret` (mode 0600) so sessions survive restarts. Several instances must share
 * AXLE_JWT_SECRET instead. A stored secret shorter than MIN_SECRET_BYTES stops the start with a
 * message naming the file (an empty one made every sign-in fail).
 */
export function loadJwtSecret(configured: string | undefined, dataDir: string): Uint8Array {
  if (configured) return new TextEncoder().encode(configured);
  const file = path.join(dataDir, 'jwt-secret');
  if (!fs.existsSync(file)) writeSecretFile(file, randomBytes(32).toString('base64url'));
  const secret = new TextEncoder().encode(fs.readFileSync(file, 'utf8').trim());
  if (secret.length < MIN_SECRET_BYTES) {
    throw new Error(
      `${file} holds a ${secret.length}-byte session secret; at least ${MIN_SECRET_BYTES} bytes are required. ` +
        'Delete the file to generate a new one (this signs out every session) or set AXLE_JWT_SECRET.',
    );
  }
  return secret;
}

/**
 * Writes `secret` to `file` whole or not at all: into a temporary file, synced, then linked into
 * place. Linking (unlike renaming) fails when the file exists, so of two processes starting at once
 * both keep the first secret.
 */
function writeSecretFile(file: string, secret: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, secret);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
    syncDirectory(path.dirname(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Makes a new directory entry durable. */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
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
