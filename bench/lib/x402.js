// The X-Payment header of an x402 v1 `exact` payment on eip155:8453: an EIP-3009 authorization signed by
// `account` (viem) for `priceMicro` to `payTo`, valid until `nowSec` + 280 s. Shared by the money benches.
import { randomBytes } from 'node:crypto';
import { authorizationTypes } from '@x402/evm';
import { USDC } from '../../packages/server/dist/payments/x402-requirements.js';

export async function paymentHeader(account, { payTo, priceMicro, nowSec = Math.floor(Date.now() / 1000) }) {
  const authorization = {
    from: account.address,
    to: payTo,
    value: BigInt(priceMicro),
    validAfter: 0n,
    validBefore: BigInt(nowSec + 280),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  };
  const signature = await account.signTypedData({
    domain: { name: USDC.name, version: USDC.version, chainId: 8453, verifyingContract: USDC.asset },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const payload = {
    signature,
    authorization: Object.fromEntries(Object.entries(authorization).map(([k, v]) => [k, String(v)])),
  };
  return Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'eip155:8453', payload })).toString(
    'base64',
  );
}
