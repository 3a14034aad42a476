import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';
import type { JWSSignedReceipt } from '@x402/extensions/offer-receipt';
import { NETWORK } from './x402-requirements.js';

// Receipts of the x402 offer/receipt extension (coinbase/x402 specs/extensions/extension-offer-and-receipt.md):
// a JWS (EdDSA) over {version, network, resourceUrl, payer, issuedAt}, whose kid is a did:web URL of this server;
// the DID document at /.well-known/did.json publishes the public key, so a buyer verifies a receipt offline.
// The extension is loaded at the first receipt, not at start: it brings viem.

const KEY_FRAGMENT = 'receipts-1';

export interface SigningKeyPair {
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

/** A fresh Ed25519 key pair as JWKs. */
export function newSigningKey(): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateJwk: privateKey.export({ format: 'jwk' }), publicJwk: publicKey.export({ format: 'jwk' }) };
}

/** did:web of the base URL: the host (with a port percent-encoded) and any path segments. */
export function didOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...path].join(':');
}

export interface ReceiptSigner {
  /** The signed receipt of a settled payment by `payer` for `resourceUrl`, at `nowMs`. */
  receipt(resourceUrl: string, payer: string, nowMs: number): Promise<JWSSignedReceipt>;
  /** The DID document naming the public key. */
  didDocument(): Record<string, unknown>;
}

export function createReceiptSigner(baseUrl: string, key: SigningKeyPair): ReceiptSigner {
  const did = didOf(baseUrl);
  const kid = `${did}#${KEY_FRAGMENT}`;
  const privateKey: KeyObject = createPrivateKey({ key: key.privateJwk as never, format: 'jwk' });
  const signer = {
    kid,
    format: 'jws' as const,
    algorithm: 'EdDSA',
    sign: async (input: Uint8Array) => sign(null, input, privateKey).toString('base64url'),
  };
  return {
    async receipt(resourceUrl, payer, nowMs) {
      const { createJWS } = await import('@x402/extensions/offer-receipt');
      const payload = { version: 1, network: NETWORK, resourceUrl, payer, issuedAt: Math.floor(nowMs / 1000) };
      return { format: 'jws', signature: await createJWS(payload, signer) };
    },
    didDocument() {
      const { kty, crv, x } = key.publicJwk;
      return {
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
        id: did,
        verificationMethod: [{ id: kid, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty, crv, x } }],
        assertionMethod: [kid],
      };
    },
  };
}

/** The SettlementResponse `extensions` entry carrying a receipt. */
export async function receiptExtension(receipt: JWSSignedReceipt) {
  const { OFFER_RECEIPT } = await import('@x402/extensions/offer-receipt');
  return { [OFFER_RECEIPT]: { info: { receipt } } };
}
