import { readFileSync } from 'node:fs';
import ganache from 'ganache';
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { USDC } from '../../src/payments/x402-requirements.js';

/** TestUSDC.sol compiled by build-token.mjs (chain.test.ts checks it matches the source). */
export const token = JSON.parse(readFileSync(new URL('TestUSDC.json', import.meta.url), 'utf8')) as {
  compiler: string;
  abi: Abi;
  runtimeBytecode: Hex;
};

export interface LocalChain {
  rpcUrl: string;
  /** Funded with ETH for gas: the key the server settles with. */
  settlementKey: Hex;
  /** Another funded account (a facilitator's). */
  facilitatorKey: Hex;
  pub: PublicClient;
  mint(to: string, micro: bigint): Promise<void>;
  balanceOf(who: string): Promise<bigint>;
  authorizationState(authorizer: string, nonce: string): Promise<boolean>;
  /** Stops mining: transactions wait in the pool until mine(). */
  stopMining(): Promise<void>;
  /** Mines one block with whatever is pending, and mines every transaction at once again. */
  mine(): Promise<void>;
  pendingCount(): Promise<number>;
  close(): Promise<void>;
}

/**
 * A ganache chain on loopback with Base's chain id (8453) and TestUSDC's code at USDC's Base address, so
 * the server's requirements, EIP-712 domain and settlement run unchanged against it.
 */
export async function startLocalChain(): Promise<LocalChain> {
  const settlementKey = generatePrivateKey();
  const facilitatorKey = generatePrivateKey();
  const funded = (secretKey: Hex) => ({ secretKey, balance: `0x${(10n ** 20n).toString(16)}` });
  const server = ganache.server({
    chain: { chainId: 8453 },
    wallet: { accounts: [funded(settlementKey), funded(facilitatorKey)] },
    logging: { quiet: true },
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address() as { port: number };
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: 8453,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const pub = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 }) as PublicClient;
  const rpc = (method: string, params: unknown[] = []) =>
    server.provider.request({ method, params } as never) as Promise<unknown>;
  await rpc('evm_setAccountCode', [USDC.asset, token.runtimeBytecode]);
  // Minting is open on the test token; it is sent from the facilitator's account.
  const minter = createWalletClient({ account: privateKeyToAccount(facilitatorKey), chain, transport: http(rpcUrl) });
  const read = (functionName: string, args: unknown[]) =>
    pub.readContract({ address: USDC.asset, abi: token.abi, functionName, args });
  return {
    rpcUrl,
    settlementKey,
    facilitatorKey,
    pub,
    async mint(to, micro) {
      const hash = await minter.writeContract({ address: USDC.asset, abi: token.abi, functionName: 'mint', args: [to, micro] });
      await pub.waitForTransactionReceipt({ hash });
    },
    balanceOf: (who) => read('balanceOf', [who]) as Promise<bigint>,
    authorizationState: (a, n) => read('authorizationState', [a, n]) as Promise<boolean>,
    async stopMining() {
      await rpc('miner_stop');
    },
    async mine() {
      await rpc('evm_mine');
      await rpc('miner_start');
    },
    async pendingCount() {
      const pool = (await rpc('txpool_content')) as { pending: Record<string, Record<string, unknown>> };
      return Object.values(pool.pending).reduce((n, byNonce) => n + Object.keys(byNonce).length, 0);
    },
    close: () => server.close(),
  };
}
