import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, defineChain, type Hex, http as viemHttp, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export interface LoopbackFacilitator {
  url: string;
  /** When set, /settle answers this instead (a facilitator that lies); a throw answers 500. */
  override?: (body: {
    paymentPayload: PaymentPayload;
    paymentRequirements: PaymentRequirements;
  }) => Promise<SettleResponse>;
  /** Settles as the facilitator does (for an override that settles and then fails). */
  settleForReal(body: {
    paymentPayload: PaymentPayload;
    paymentRequirements: PaymentRequirements;
  }): Promise<SettleResponse>;
  settles: number;
  /** When set, how long settle waits for its transaction's receipt before answering success:false (pending). */
  receiptTimeoutMs?: number;
  close(): Promise<void>;
}

/**
 * An x402 facilitator on loopback built from the x402 packages' own facilitator code (x402Facilitator with
 * @x402/evm's ExactEvmScheme), settling on `rpcUrl` with `key`'s account.
 */
export async function startFacilitator(rpcUrl: string, key: Hex): Promise<LoopbackFacilitator> {
  const chain = defineChain({
    id: 8453,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  // The local chain mines a transaction as it is sent: a receipt is polled for every 50 ms, not viem's default 4 s.
  const client = createWalletClient({
    account: privateKeyToAccount(key),
    chain,
    transport: viemHttp(rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
  const state: Omit<LoopbackFacilitator, 'close' | 'url'> = {
    settles: 0,
    settleForReal: (b) => facilitator.settle(b.paymentPayload, b.paymentRequirements),
  };
  const signer = toFacilitatorEvmSigner({
    address: client.account.address,
    readContract: (a) => client.readContract(a as never),
    verifyTypedData: (a) => client.verifyTypedData(a as never),
    writeContract: (a) => client.writeContract(a as never),
    sendTransaction: (a) => client.sendTransaction(a),
    waitForTransactionReceipt: (a) =>
      client.waitForTransactionReceipt({ ...a, timeout: state.receiptTimeoutMs ?? a.timeout }),
    getCode: (a) => client.getCode(a),
  });
  const facilitator = new x402Facilitator().register('eip155:8453', new ExactEvmScheme(signer));
  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    };
    try {
      if (req.method === 'GET' && req.url === '/supported') return send(200, facilitator.getSupported());
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const body = JSON.parse(raw);
      if (req.url === '/verify')
        return send(200, await facilitator.verify(body.paymentPayload, body.paymentRequirements));
      if (req.url === '/settle') {
        state.settles += 1;
        const r = state.override
          ? await state.override(body)
          : await facilitator.settle(body.paymentPayload, body.paymentRequirements);
        return send(200, r);
      }
      send(404, { error: 'not found' });
    } catch (err) {
      send(500, { error: (err as Error).message });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }) as LoopbackFacilitator;
}
