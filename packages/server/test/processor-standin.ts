import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the card processor's API, speaking its wire format (form-encoded
 * requests, JSON objects with ids) for the calls the server makes: checkout sessions, connected
 * accounts, account links, account retrieval and transfers.
 */
export async function startProcessorStandIn(secretKey: string) {
  const requests: Array<{ method: string; path: string; form: URLSearchParams }> = [];
  const accounts = new Map<string, { payouts_enabled: boolean; details_submitted: boolean }>();
  const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
  let base = '';
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const c of req) text += c;
    const form = new URLSearchParams(text);
    const path = (req.url ?? '').split('?')[0]!;
    requests.push({ method: req.method!, path, form });
    const send = (status: number, body: object) =>
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const sid = id('cs_test');
      return send(200, {
        id: sid,
        object: 'checkout.session',
        url: `${base}/pay/${sid}`,
        payment_status: 'unpaid',
        metadata: {},
      });
    }
    if (req.method === 'POST' && path === '/v1/accounts') {
      const aid = id('acct');
      accounts.set(aid, { payouts_enabled: false, details_submitted: false });
      return send(200, { id: aid, object: 'account', ...accounts.get(aid) });
    }
    if (req.method === 'POST' && path === '/v1/account_links')
      return send(200, { object: 'account_link', url: `${base}/onboard/${form.get('account')}` });
    const acct = /^\/v1\/accounts\/(acct_\w+)$/.exec(path);
    if (req.method === 'GET' && acct && accounts.has(acct[1]!))
      return send(200, { id: acct[1], object: 'account', ...accounts.get(acct[1]!) });
    if (req.method === 'POST' && path === '/v1/transfers')
      return send(200, { id: id('tr'), object: 'transfer', amount: Number(form.get('amount')) });
    send(404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` },
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    /** What the hosted onboarding would do once the contributor finishes it. */
    completeOnboarding(accountId: string) {
      accounts.set(accountId, { payouts_enabled: true, details_submitted: true });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
