import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

/*
 * Encrypts a value to the holder of a 32-byte X25519 secret (ephemeral ECDH + HKDF-SHA256 +
 * AES-256-GCM). Device sign-in uses the device_code itself as that secret: the database keeps only
 * the public half, so a freshly minted API key waiting for the CLI's next poll is unreadable to
 * anyone holding just the database.
 */

// DER headers around a raw 32-byte X25519 key (RFC 8410).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const INFO = Buffer.from('axle sealed box v1');

const privateKey = (secret: Buffer): KeyObject =>
  createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secret]), format: 'der', type: 'pkcs8' });
const publicKey = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
const rawPublic = (key: KeyObject): Buffer =>
  (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(SPKI_PREFIX.length);

function aesKey(shared: Buffer, ephemeralPub: Buffer, recipientPub: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeralPub, recipientPub]), INFO, 32));
}

/** The public half (raw 32 bytes) of a 32-byte secret. */
export function publicKeyOf(secret: Buffer): Buffer {
  return rawPublic(createPublicKey(privateKey(secret)));
}

/** base64url(ephemeral public key | iv | tag | ciphertext). */
export function seal(plaintext: string, recipientPub: Buffer): string {
  const eph = generateKeyPairSync('x25519');
  const ephPub = rawPublic(eph.publicKey);
  const key = aesKey(
    diffieHellman({ privateKey: eph.privateKey, publicKey: publicKey(recipientPub) }),
    ephPub,
    recipientPub,
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([ephPub, iv, cipher.getAuthTag(), ct]).toString('base64url');
}

/** Inverse of seal; throws if the box was not sealed to this secret or was altered. */
export function open(sealed: string, secret: Buffer): string {
  const buf = Buffer.from(sealed, 'base64url');
  const ephPub = buf.subarray(0, 32);
  const iv = buf.subarray(32, 44);
  const tag = buf.subarray(44, 60);
  const priv = privateKey(secret);
  const key = aesKey(
    diffieHellman({ privateKey: priv, publicKey: publicKey(ephPub) }),
    ephPub,
    rawPublic(createPublicKey(priv)),
  );
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(buf.subarray(60)), decipher.final()]).toString('utf8');
}
