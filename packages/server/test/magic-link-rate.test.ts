import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';

const MINUTE = 60_000;

/** Fires `n` magic-link requests at once; returns the responses in order. */
const burst = (
  server: TestServer,
  n: number,
  body: (i: number) => unknown,
  headers: (i: number) => Record<string, string> = () => ({}),
) => Promise.all(Array.from({ length: n }, (_, i) => post(server, '/auth/magic-link', body(i), headers(i))));

const statuses = (responses: Response[]) => responses.map((r) => r.status);
const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;

// Counters live in SQLite (shared by every instance), so each case gets a fresh server.
describe('magic-link rate limits (database counters, 15-minute windows)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AXLE_TRUST_PROXY: 'true' });
  });
  afterAll(() => server.stop());

  it('lets exactly 5 of 50 concurrent requests for one email through, then opens again after the window', async () => {
    const ip = { 'x-forwarded-for': '198.51.100.1' };
    const res = await burst(
      server,
      50,
      () => ({ email: 'burst@example.com' }),
      () => ip,
    );
    const s = statuses(res);
    expect(count(s, 200)).toBe(5);
    expect(count(s, 429)).toBe(45);
    const refused = res.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('900');
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', retry_after_seconds: 900 });

    server.clock.advance(10 * MINUTE);
    const later = await post(server, '/auth/magic-link', { email: 'BURST@example.com' }, ip);
    expect(later.status).toBe(429);
    expect(later.headers.get('retry-after')).toBe('300');

    server.clock.advance(5 * MINUTE);
    const next = statuses(
      await burst(
        server,
        6,
        () => ({ email: 'burst@example.com' }),
        () => ip,
      ),
    );
    expect(count(next, 200)).toBe(5);
    expect(count(next, 429)).toBe(1);
  });

  it('lets exactly 20 of 50 concurrent requests from one IP through, and refused ones use no quota', async () => {
    const ip = { 'x-forwarded-for': '198.51.100.2' };
    const s = statuses(
      await burst(
        server,
        50,
        (i) => ({ email: `ip${i}@example.com` }),
        () => ip,
      ),
    );
    expect(count(s, 200)).toBe(20);
    expect(count(s, 429)).toBe(30);
    // The refused addresses still have their whole per-email allowance from another IP.
    const other = await post(
      server,
      '/auth/magic-link',
      { email: `ip${s.indexOf(429)}@example.com` },
      { 'x-forwarded-for': '198.51.100.3' },
    );
    expect(other.status).toBe(200);
  });

  it('counts the proxy-appended (last) X-Forwarded-For entry, not a spoofed first one', async () => {
    const s = statuses(
      await burst(
        server,
        25,
        (i) => ({ email: `spoof${i}@example.com` }),
        (i) => ({ 'x-forwarded-for': `10.0.0.${i}, 198.51.100.4` }),
      ),
    );
    expect(count(s, 200)).toBe(20);
  });

  // Found by rotating the IPv6 address within one /64 (a single host or home network holds 2^64 of them):
  // every address had its own counter, so the per-IP limits of every route did not hold for IPv6 clients.
  it('counts an IPv6 client by its /64, so rotating addresses within it does not escape the per-IP limit', async () => {
    const s = statuses(
      await burst(
        server,
        25,
        (i) => ({ email: `six${i}@example.com` }),
        (i) => ({ 'x-forwarded-for': `2001:db8:6:${i % 2 ? '4' : '0004'}:${i.toString(16)}:0:0:1` }),
      ),
    );
    expect(count(s, 200)).toBe(20);
    expect(count(s, 429)).toBe(5);
    // Another /64 has its own counter.
    const other = await post(
      server,
      '/auth/magic-link',
      { email: 'six-other@example.com' },
      {
        'x-forwarded-for': '2001:db8:6:5::1',
      },
    );
    expect(other.status).toBe(200);
  });

  it('keeps the counters in the database, keyed without the email address', async () => {
    const rows = await server.db.all<{ bucket: string }>('SELECT bucket FROM rate_limits');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.bucket).join(' ')).not.toMatch(/@/);
  });
});

describe('without AXLE_TRUST_PROXY', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('ignores X-Forwarded-For, so rotating it does not escape the per-IP limit', async () => {
    const s = statuses(
      await burst(
        server,
        25,
        (i) => ({ email: `rot${i}@example.com` }),
        (i) => ({ 'x-forwarded-for': `203.0.113.${i}` }),
      ),
    );
    expect(count(s, 200)).toBe(20);
    expect(count(s, 429)).toBe(5);
  });
});
