import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInTransfer {
  id: string;
  object: 'transfer';
  amount: number;
  currency: string;
  destination: string;
  transfer_group: string | null;
  metadata: Record<string, string>;
  reversed: boolean;
  /** Cents taken back so far; `reversed` turns true only when all of it is. */
  amount_reversed: number;
  created: number;
}

/**
 * How transfer creation behaves: `normal`; `slow` creates (or replays) the transfer and then holds the answer
 * until `release()` (a processor that times out after accepting); `hang` holds the request before creating
 * anything (a request that never reached it); `late` holds the request before creating anything, then on `release()`
 * creates the transfer and answers (a processor that acts on a request later than the caller looks);
 * `refuse` answers 400 as for an invalid destination; `unavailable` answers the first request under each key 503
 * before acting (nothing created or kept under the key) and the next one normally; `lost` creates the transfer and
 * keeps its answer under the key, then answers this request 502 (a gateway that lost the answer after it acted).
 */
export type TransferMode = 'normal' | 'slow' | 'hang' | 'late' | 'refuse' | 'unavailable' | 'lost';

/**
 * A loopback stand-in for the card processor's API, speaking its wire format (form-encoded requests, JSON
 * objects with ids, list objects, error objects, Idempotency-Key semantics) for the calls the server makes:
 * checkout sessions, connected accounts, account links, account retrieval, and transfers (create honouring
 * Idempotency-Key, list filtered by transfer_group or destination with cursor paging, retrieve).
 */
export async function startProcessorStandIn(secretKey: string) {
  const requests: Array<{ method: string; path: string; form: URLSearchParams; idempotencyKey?: string }> = [];
  const accounts = new Map<string, { payouts_enabled: boolean; details_submitted: boolean }>();
  const transfers: StandInTransfer[] = [];
  // Idempotency-Key -> the answer of the first request with it (null while that request is in progress).
  const answered = new Map<string, { status: number; body: object; params: string } | null>();
  // Keys an `unavailable` transfer answered 503 once.
  const unavailableFor = new Set<string | undefined>();
  const held: Array<() => void> = [];
  const transferWaiters: Array<(t: StandInTransfer) => void> = [];
  const requestWaiters: Array<{
    match: (path: string, query: URLSearchParams, form: URLSearchParams) => boolean;
    resolve: () => void;
  }> = [];
  let defaultMode: TransferMode = 'normal';
  const modeFor = new Map<string, TransferMode>();
  const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
  let base = '';
  const error = (type: string, message: string, code?: string) => ({ error: { type, message, code } });

  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const c of req) text += c;
    const form = new URLSearchParams(text);
    const [path, search] = (req.url ?? '').split('?') as [string, string | undefined];
    const query = new URLSearchParams(search ?? '');
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method: req.method!, path, form, idempotencyKey });
    for (const w of requestWaiters.splice(0)) {
      if (w.match(path, query, form)) w.resolve();
      else requestWaiters.push(w);
    }
    const send = (status: number, body: object) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return send(401, error('invalid_request_error', 'Invalid API Key provided'));
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
    if (req.method === 'POST' && path === '/v1/transfers') return createTransfer(form, text, idempotencyKey, send, res);
    if (req.method === 'GET' && path === '/v1/transfers') {
      const group = query.get('transfer_group');
      const destination = query.get('destination');
      const limit = Math.min(Number(query.get('limit') ?? 10), 100);
      // Newest first, as the processor lists; starting_after pages on.
      let all = transfers
        .filter(
          (t) =>
            (group === null || t.transfer_group === group) && (destination === null || t.destination === destination),
        )
        .reverse();
      const after = query.get('starting_after');
      if (after) all = all.slice(all.findIndex((t) => t.id === after) + 1);
      return send(200, {
        object: 'list',
        url: '/v1/transfers',
        has_more: all.length > limit,
        data: all.slice(0, limit),
      });
    }
    const tr = /^\/v1\/transfers\/(tr_\w+)$/.exec(path);
    if (req.method === 'GET' && tr) {
      const t = transfers.find((x) => x.id === tr[1]);
      return t
        ? send(200, t)
        : send(404, error('invalid_request_error', `No such transfer: '${tr[1]}'`, 'resource_missing'));
    }
    send(404, error('invalid_request_error', `Unrecognized request URL (${req.method}: ${path})`));
  });

  async function createTransfer(
    form: URLSearchParams,
    params: string,
    key: string | undefined,
    send: (status: number, body: object) => void,
    res: http.ServerResponse,
  ) {
    const hold = () => new Promise<void>((resolve) => held.push(resolve));
    const mode = modeFor.get(form.get('destination') ?? '') ?? defaultMode;
    if (mode === 'unavailable' && !unavailableFor.has(key)) {
      unavailableFor.add(key);
      return send(503, error('api_error', 'The service is temporarily unavailable'));
    }
    if (key !== undefined && answered.has(key)) {
      const first = answered.get(key);
      if (first === null)
        return send(
          409,
          error('idempotency_error', 'There is currently another in-progress request using this Idempotent Key'),
        );
      if (first!.params !== params)
        return send(
          400,
          error('idempotency_error', 'Keys for idempotent requests can only be used with the same parameters'),
        );
      if (mode === 'slow') await hold();
      return send(first!.status, first!.body);
    }
    if (key !== undefined) answered.set(key, null);
    if (mode === 'hang') {
      // Never processed: the key is free again once the caller gives up or the request is released.
      const forget = () => key !== undefined && answered.get(key) === null && answered.delete(key);
      res.once('close', forget);
      await hold();
      forget();
      return res.destroy();
    }
    if (mode === 'late') await hold();
    if (mode === 'refuse') {
      const body = error('invalid_request_error', 'No such destination', 'resource_missing');
      if (key !== undefined) answered.set(key, { status: 400, body, params });
      return send(400, body);
    }
    const metadata: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m) metadata[m[1]!] = v;
    }
    const t: StandInTransfer = {
      id: id('tr'),
      object: 'transfer',
      amount: Number(form.get('amount')),
      currency: form.get('currency') ?? 'usd',
      destination: form.get('destination') ?? '',
      transfer_group: form.get('transfer_group') || null,
      metadata,
      reversed: false,
      amount_reversed: 0,
      created: Math.floor(Date.now() / 1000),
    };
    transfers.push(t);
    if (key !== undefined) answered.set(key, { status: 200, body: t, params });
    for (const w of transferWaiters.splice(0)) w(t);
    if (mode === 'slow') await hold();
    if (mode === 'lost') return send(502, error('api_error', 'Bad gateway'));
    send(200, t);
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    secretKey,
    requests,
    transfers,
    /** What the hosted onboarding would do once the contributor finishes it. */
    completeOnboarding(accountId: string) {
      accounts.set(accountId, { payouts_enabled: true, details_submitted: true });
    },
    /** How transfers behave, for every destination or only for `destination`. */
    setTransferMode(m: TransferMode, destination?: string) {
      if (destination) modeFor.set(destination, m);
      else {
        defaultMode = m;
        modeFor.clear();
      }
    },
    /** Answers every held transfer request (a `hang` one is then dropped, as if it never arrived). */
    release() {
      for (const r of held.splice(0)) r();
    },
    /** Resolves at the next transfer the stand-in creates. */
    nextTransfer: () => new Promise<StandInTransfer>((resolve) => transferWaiters.push(resolve)),
    /** Resolves at the next request matching. */
    nextRequest: (match: (path: string, query: URLSearchParams, form: URLSearchParams) => boolean) =>
      new Promise<void>((resolve) => requestWaiters.push({ match, resolve })),
    close: () =>
      new Promise<void>((r) => {
        for (const h of held.splice(0)) h();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type ProcessorStandIn = Awaited<ReturnType<typeof startProcessorStandIn>>;
