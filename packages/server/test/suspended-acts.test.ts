import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, startSmtp } from '../../../test/support/identity.js';
import { ADMIN_TOKEN, admin, contributor, learningBody, publish } from './knowledge-helpers.js';

/*
 * A suspended account may sign in and read, but not act (docs/auth.md). POST /learn refused it, yet the
 * self-review routes published its held learnings and the rate route let it move rankings.
 */

let server: TestServer;
let smtp: Smtp;
let bob: Awaited<ReturnType<typeof contributor>>;
let carol: Awaited<ReturnType<typeof contributor>>;
let bobPublished: string;
let bobHeld: string[];

const subOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).sub as string;
const suspend = (jwt: string, action: 'suspend' | 'unsuspend' = 'suspend') =>
  post(server, `/admin/accounts/${subOf(jwt)}/${action}`, {}, admin);
const statusOf = async (id: string) =>
  (await server.db.get<{ status: string }>('SELECT status FROM learnings WHERE id = ?', [id]))!.status;
/** A scored, clean item that waits only for its owner: below the floor is lifted per item, the rest by approve-clean. */
const held = async (n: number, dims: number) => {
  const self = { specificity: dims, actionability: dims, novelty: dims, completeness: dims };
  const res = await post(
    server,
    '/learn',
    learningBody(n, { submission_channel: 'extraction', quality_self_assessment: self }),
    bob.headers,
  );
  const out = await res.json();
  expect(out.status).toBe('pending_review');
  return out.id as string;
};

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startTestServer({ AXLE_SMTP_URL: smtp.url, AXLE_ADMIN_TOKEN: ADMIN_TOKEN });
  bob = await contributor(server, smtp, 'bob@example.com');
  carol = await contributor(server, smtp, 'carol@example.com');
  bobPublished = await publish(server, bob.headers, learningBody(0));
  bobHeld = [await held(1, 5), await held(2, 5), await held(3, 5), await held(4, 5)];
  expect((await suspend(bob.jwt)).status).toBe(200);
  expect((await suspend(carol.jwt)).status).toBe(200);
});
afterAll(async () => {
  await server.stop();
  await smtp.close();
});

describe('a suspended account cannot publish through self-review or rate', () => {
  it.each([
    ['one item, by key', () => post(server, `/account/pending/${bobHeld[0]}/approve`, {}, bob.headers)],
    ['one item, by session', () => post(server, `/account/pending/${bobHeld[0]}/approve`, {}, bearer(bob.jwt))],
    ['several items', () => post(server, '/account/pending/approve', { ids: bobHeld }, bob.headers)],
    ['approve-clean', () => post(server, '/account/pending/approve-clean', { dry_run: false }, bob.headers)],
  ])('approving (%s) is 403 account_suspended and publishes nothing', async (_name, approve) => {
    const res = await approve();
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'account_suspended' });
    for (const id of bobHeld) expect(await statusOf(id)).toBe('pending_review');
  });

  it('rating is 403 account_suspended and records nothing', async () => {
    for (const headers of [carol.headers, bearer(carol.jwt)]) {
      const res = await post(server, `/knowledge/${bobPublished}/rate`, { helpfulness: 1 }, headers);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'account_suspended' });
    }
    const row = await server.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM learning_ratings WHERE learning_id = ?', [
      bobPublished,
    ]);
    expect(row!.n).toBe(0);
  });

  it('still lets the suspended account read its queue and withdraw its own held items', async () => {
    expect((await fetch(`${server.url}/account/pending`, { headers: bob.headers })).status).toBe(200);
    expect((await post(server, `/account/pending/${bobHeld[3]}/reject`, {}, bob.headers)).status).toBe(200);
    expect(await statusOf(bobHeld[3]!)).toBe('rejected');
  });

  it('once reinstated, the account approves and rates again', async () => {
    await suspend(bob.jwt, 'unsuspend');
    await suspend(carol.jwt, 'unsuspend');
    const ok = await post(server, `/account/pending/${bobHeld[0]}/approve`, {}, bob.headers);
    expect(await ok.json()).toMatchObject({ ok: true, status: 'approved' });
    const rated = await post(server, `/knowledge/${bobPublished}/rate`, { helpfulness: 4 }, carol.headers);
    expect(rated.status).toBe(200);
  });
});
