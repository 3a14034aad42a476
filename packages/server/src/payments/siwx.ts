import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SIWxPayload } from '@x402/extensions/sign-in-with-x';
import { NETWORK } from './x402-requirements.js';

// The x402 sign-in-with-x extension: the 402 carries a challenge (domain, uri, nonce, issuedAt, expirationTime);
// a wallet answers with the SIWE message of it, signed, in the SIGN-IN-WITH-X header. Nonces are stateless (an
// HMAC of the challenge under a server secret), so an anonymous 402 writes nothing; a used nonce is recorded
// once, by the caller, when it grants access. The extension is loaded at the first 402 or sign-in, not at start:
// it brings viem, which a server that never answers a 402 does not need.

/** How long a challenge may be answered. */
export const SIWX_TTL_SECONDS = 300;
const STATEMENT = 'Sign in to read again a learning this wallet paid for within the last 30 days.';

export interface SiwxProof {
  /** The wallet that signed, lower-case. */
  wallet: string;
  nonce: string;
  /** Unix ms after which the proof no longer counts. */
  expiresAt: number;
}

export interface Siwx {
  /** The 402's `sign-in-with-x` extension for `resourceUrl`, issued now. */
  declaration(resourceUrl: string, nowMs: number): Promise<Record<string, unknown>>;
  /** The proof in a SIGN-IN-WITH-X header for `resourceUrl`, or undefined when it is not a valid, current one. */
  verify(header: string, resourceUrl: string, nowMs: number): Promise<SiwxProof | undefined>;
}

export function createSiwx(secret: Uint8Array): Siwx {
  const key = createHmac('sha256', secret).update('axle sign-in-with-x nonce').digest();
  const nonceOf = (uri: string, issuedAt: string, expirationTime: string) =>
    createHmac('sha256', key).update(`${uri}\n${issuedAt}\n${expirationTime}`).digest('hex').slice(0, 32);
  const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

  return {
    async declaration(resourceUrl, nowMs) {
      const { SIGN_IN_WITH_X, buildSIWxSchema } = await import('@x402/extensions/sign-in-with-x');
      const issuedAt = new Date(nowMs).toISOString();
      const expirationTime = new Date(nowMs + SIWX_TTL_SECONDS * 1000).toISOString();
      return {
        [SIGN_IN_WITH_X]: {
          info: {
            domain: new URL(resourceUrl).host,
            uri: resourceUrl,
            statement: STATEMENT,
            version: '1',
            nonce: nonceOf(resourceUrl, issuedAt, expirationTime),
            issuedAt,
            expirationTime,
            resources: [resourceUrl],
          },
          supportedChains: [{ chainId: NETWORK, type: 'eip191' }],
          schema: buildSIWxSchema(),
        },
      };
    },

    async verify(header, resourceUrl, nowMs) {
      // Outside the try: a failure to load is an error, not a proof found invalid.
      const { parseSIWxHeader, verifySIWxSignature } = await import('@x402/extensions/sign-in-with-x');
      let payload: SIWxPayload;
      try {
        payload = parseSIWxHeader(header.trim());
      } catch {
        return undefined;
      }
      const issued = Date.parse(payload.issuedAt);
      const expires = Date.parse(payload.expirationTime ?? '');
      const current =
        payload.uri === resourceUrl &&
        payload.domain === new URL(resourceUrl).host &&
        payload.chainId === NETWORK &&
        payload.expirationTime !== undefined &&
        sameText(payload.nonce, nonceOf(payload.uri, payload.issuedAt, payload.expirationTime)) &&
        issued <= nowMs + 30_000 &&
        nowMs <= expires;
      if (!current) return undefined;
      const verified = await verifySIWxSignature(payload);
      if (!verified.isValid) return undefined;
      return { wallet: verified.payer.toLowerCase(), nonce: payload.nonce, expiresAt: expires };
    },
  };
}
