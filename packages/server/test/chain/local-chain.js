// A ganache chain on loopback with Base's chain id (8453) and TestUSDC's code at USDC's Base address, so the
// server's requirements, EIP-712 domain and settlement run unchanged against it. Plain JS: the tests and
// bench/x402-settlement.js share it.
import { readFileSync } from 'node:fs';
import ganache from 'ganache';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/** USDC on Base (packages/server/src/payments/x402-requirements.ts). */
const USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** A test contract compiled by build-token.mjs (token-artifact.test.ts checks it matches the source). */
const artifact = (name) => JSON.parse(readFileSync(new URL(`${name}.json`, import.meta.url), 'utf8'));

/** TestUSDC.sol: its abi and runtime code. */
export const token = artifact('TestUSDC');
/** Batch.sol, a payer's contract making several token calls in one transaction: its abi and creation code. */
export const batch = artifact('Batch');

/**
 * @returns {Promise<{
 *   rpcUrl: string, settlementKey: `0x${string}`, facilitatorKey: `0x${string}`,
 *   mint(to: string, micro: bigint): Promise<void>, balanceOf(who: string): Promise<bigint>,
 *   stopMining(): Promise<void>, mine(): Promise<void>, mineAt(timestamp: bigint): Promise<void>,
 *   pendingCount(): Promise<number>, close(): Promise<void>
 * }>}
 */
export async function startLocalChain() {
  // settlementKey: the server settles with it; facilitatorKey: a facilitator's, and the test token's minter.
  const settlementKey = generatePrivateKey();
  const facilitatorKey = generatePrivateKey();
  const funded = (secretKey) => ({ secretKey, balance: `0x${(10n ** 20n).toString(16)}` });
  const server = ganache.server({
    chain: { chainId: 8453 },
    wallet: { accounts: [funded(settlementKey), funded(facilitatorKey)] },
    logging: { quiet: true },
  });
  await server.listen(0, '127.0.0.1');
  const rpcUrl = `http://127.0.0.1:${server.address().port}`;
  const chain = defineChain({
    id: 8453,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const pub = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  const rpc = (method, params = []) => server.provider.request({ method, params });
  await rpc('evm_setAccountCode', [USDC_ADDRESS, token.runtimeBytecode]);
  const minter = createWalletClient({ account: privateKeyToAccount(facilitatorKey), chain, transport: http(rpcUrl) });
  const read = (functionName, args) => pub.readContract({ address: USDC_ADDRESS, abi: token.abi, functionName, args });
  return {
    rpcUrl,
    settlementKey,
    facilitatorKey,
    async mint(to, micro) {
      const hash = await minter.writeContract({
        address: USDC_ADDRESS,
        abi: token.abi,
        functionName: 'mint',
        args: [to, micro],
      });
      await pub.waitForTransactionReceipt({ hash });
    },
    balanceOf: (who) => read('balanceOf', [who]),
    /** Stops mining: transactions wait in the pool until mine(). */
    stopMining: () => rpc('miner_stop'),
    /** Mines one block with whatever is pending, and mines every transaction at once again. */
    async mine() {
      await rpc('evm_mine');
      await rpc('miner_start');
    },
    /** Mines one block with whatever is pending at `timestamp` (seconds); later blocks carry the wall clock again. */
    async mineAt(timestamp) {
      await rpc('evm_mine', [{ timestamp: Number(timestamp) }]);
      await rpc('evm_setTime', [Date.now()]);
    },
    async pendingCount() {
      const pool = await rpc('txpool_content');
      return Object.values(pool.pending).reduce((n, byNonce) => n + Object.keys(byNonce).length, 0);
    },
    close: () => server.close(),
  };
}
