import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the facilitator stand-in reads of a POST /verify or /settle body. */
interface FacilitatorBody {
  paymentPayload?: { payload?: { authorization?: { from?: string } } };
  paymentRequirements?: { amount?: string };
}

/** A loopback facilitator speaking the x402 facilitator protocol. */
export async function startFacilitator(
  behaviour: {
    /** The /verify answer's body (200), or its status and body. */
    verify?: (body: FacilitatorBody) => object | [number, object];
    settle?: (body: FacilitatorBody) => [number, object] | Promise<[number, object]>;
    network?: string;
  } = {},
) {
  const calls: Array<{ path: string; body: FacilitatorBody }> = [];
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const c of req) text += c;
    const body = (text ? JSON.parse(text) : {}) as FacilitatorBody;
    calls.push({ path: req.url!, body });
    const send = (status: number, v: object) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    const payer = body?.paymentPayload?.payload?.authorization?.from;
    if (req.method === 'GET' && req.url === '/supported') {
      return send(200, {
        kinds: [{ x402Version: 2, scheme: 'exact', network: behaviour.network ?? 'eip155:8453' }],
        extensions: [],
        signers: {},
      });
    }
    if (req.url === '/verify') {
      const v = behaviour.verify?.(body) ?? { isValid: true, payer };
      return Array.isArray(v) ? send(v[0], v[1]) : send(200, v);
    }
    if (req.url === '/settle') {
      const [status, v] = (await behaviour.settle?.(body)) ?? [
        200,
        { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453', payer },
      ];
      return send(status, v);
    }
    send(404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
