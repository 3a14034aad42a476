import { CURRENT_CONSENT_VERSION } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../src/services/audit.js';
import type { TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, signIn, startMailingServer } from '../../../test/support/identity.js';

describe('extraction consent and settings', () => {
  let smtp: Smtp;
  let server: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailingServer());
  });
  afterAll(() => stop());

  const patch = (jwt: string, body: unknown) =>
    fetch(`${server.url}/account/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer(jwt) },
      body: JSON.stringify(body),
    });
  const settings = async (jwt: string) =>
    (await fetch(`${server.url}/account/settings`, { headers: bearer(jwt) })).json();
  const records = (accountEmail: string) =>
    server.db.all<{ action: string; consent_version: string; via: string; recorded_at: number; audit_ref: string }>(
      'SELECT c.action, c.consent_version, c.via, c.recorded_at, c.audit_ref FROM consent_records c JOIN accounts a ON a.id = c.account_id WHERE a.email = ? ORDER BY c.id',
      [accountEmail],
    );

  it('needs a session token and a valid body', async () => {
    expect((await post(server, '/extract/consent', { action: 'grant' })).status).toBe(401);
    expect((await patch('nope', { autonomous_extraction_mode: 'automatic' })).status).toBe(401);
    const jwt = await signIn(server, smtp, 'bad-input@example.com');
    for (const body of [{}, { action: 'maybe' }])
      expect((await post(server, '/extract/consent', body, bearer(jwt))).status).toBe(400);
    for (const body of [{}, { autonomous_extraction_mode: 'always' }])
      expect((await patch(jwt, body)).status).toBe(400);
    expect(await records('bad-input@example.com')).toEqual([]);
  });

  it('records grants and revocations append-only, each versioned and audit-logged', async () => {
    const jwt = await signIn(server, smtp, 'consent@example.com');
    expect(await settings(jwt)).toEqual({
      autonomous_extraction_mode: 'off',
      auto_publish_threshold: 0.7,
      consent_granted: false,
      consent_version: null,
    });

    const t0 = server.clock.now();
    const grant = await post(server, '/extract/consent', { action: 'grant' }, bearer(jwt));
    expect(grant.status).toBe(200);
    const g = await grant.json();
    expect(g).toEqual({
      consent_recorded: true,
      action: 'grant',
      consent_version: CURRENT_CONSENT_VERSION,
      audit_ref: expect.stringMatching(/^aud_/),
    });
    expect(CURRENT_CONSENT_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await settings(jwt)).toEqual({
      autonomous_extraction_mode: 'off',
      auto_publish_threshold: 0.7,
      consent_granted: true,
      consent_version: CURRENT_CONSENT_VERSION,
    });

    server.clock.advance(1000);
    await patch(jwt, { autonomous_extraction_mode: 'manual' }); // already granted: nothing new recorded
    const revoke = await (await post(server, '/extract/consent', { action: 'revoke' }, bearer(jwt))).json();
    expect(revoke).toMatchObject({ consent_recorded: true, action: 'revoke' });
    // Revoking stops extraction too.
    expect(await settings(jwt)).toEqual({
      autonomous_extraction_mode: 'off',
      auto_publish_threshold: 0.7,
      consent_granted: false,
      consent_version: CURRENT_CONSENT_VERSION,
    });

    expect(await records('consent@example.com')).toEqual([
      {
        action: 'grant',
        consent_version: CURRENT_CONSENT_VERSION,
        via: 'consent',
        recorded_at: t0,
        audit_ref: g.audit_ref,
      },
      {
        action: 'revoke',
        consent_version: CURRENT_CONSENT_VERSION,
        via: 'consent',
        recorded_at: t0 + 1000,
        audit_ref: revoke.audit_ref,
      },
    ]);
    const audit = await server.db.all<{ id: string; action: string }>(
      'SELECT id, action FROM audit_log WHERE id IN (?, ?) ORDER BY seq',
      [g.audit_ref, revoke.audit_ref],
    );
    expect(audit.map((a) => a.action)).toEqual(['consent.granted', 'consent.revoked']);
    await expect(server.db.run("UPDATE consent_records SET action = 'grant'")).rejects.toThrow(/append-only/);
    expect((await verifyAuditChain(server.db)).ok).toBe(true);
  });

  it('PATCH /account/settings: the first non-off mode grants, off revokes, other moves record nothing', async () => {
    const jwt = await signIn(server, smtp, 'settings@example.com');
    const steps: Array<[string, boolean]> = [
      ['off', false], // never granted: nothing to revoke
      ['automatic', true], // first non-off: grant
      ['manual', false], // still consenting
      ['off', true], // revocation
      ['manual', true], // consenting again: a new grant
    ];
    for (const [mode, recorded] of steps) {
      const res = await patch(jwt, { autonomous_extraction_mode: mode });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({ autonomous_extraction_mode: mode, consent_recorded: recorded });
      if (recorded)
        expect(body).toMatchObject({
          consent_version: CURRENT_CONSENT_VERSION,
          audit_ref: expect.stringMatching(/^aud_/),
        });
      expect((await settings(jwt)).autonomous_extraction_mode).toBe(mode);
    }
    expect((await records('settings@example.com')).map((r) => `${r.action}/${r.via}`)).toEqual([
      'grant/settings',
      'revoke/settings',
      'grant/settings',
    ]);
    expect(await settings(jwt)).toEqual({
      autonomous_extraction_mode: 'manual',
      auto_publish_threshold: 0.7,
      consent_granted: true,
      consent_version: CURRENT_CONSENT_VERSION,
    });
  });

  it('lets an API key with the account scope read the settings and change consent, naming the key in the audit log', async () => {
    const jwt = await signIn(server, smtp, 'reader@example.com');
    const mint = async (scopes: string[]) =>
      (await (await post(server, '/account/api-keys', { name: 'cli', scopes }, bearer(jwt))).json()) as {
        id: string;
        api_key: string;
      };
    const key = await mint(['account']);
    const res = await fetch(`${server.url}/account/settings`, { headers: { 'x-api-key': key.api_key } });
    expect(res.status).toBe(200);
    expect((await res.json()).autonomous_extraction_mode).toBe('off');

    const grant = await post(server, '/extract/consent', { action: 'grant' }, { 'x-api-key': key.api_key });
    expect(grant.status).toBe(200);
    const g = await grant.json();
    const viaKey = (
      await fetch(`${server.url}/account/settings`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
        body: JSON.stringify({ autonomous_extraction_mode: 'off' }),
      })
    ).json();
    const off = await viaKey;
    expect(off).toMatchObject({ autonomous_extraction_mode: 'off', consent_recorded: true });
    const audit = await server.db.all<{ action: string; data: string }>(
      'SELECT action, data FROM audit_log WHERE id IN (?, ?) ORDER BY seq',
      [g.audit_ref, off.audit_ref],
    );
    expect(audit.map((a) => [a.action, JSON.parse(a.data)])).toEqual([
      ['consent.granted', { consent_version: CURRENT_CONSENT_VERSION, via: 'consent', key_id: key.id }],
      ['consent.revoked', { consent_version: CURRENT_CONSENT_VERSION, via: 'settings', key_id: key.id }],
    ]);

    // A key without the account scope may not change consent; an unknown key is refused.
    const contributeOnly = await mint(['contribute']);
    const refused = await post(
      server,
      '/extract/consent',
      { action: 'grant' },
      { 'x-api-key': contributeOnly.api_key },
    );
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('insufficient_scope');
    expect(
      (await post(server, '/extract/consent', { action: 'grant' }, { 'x-api-key': `axl_${'0'.repeat(43)}` })).status,
    ).toBe(401);
    expect((await records('reader@example.com')).map((r) => r.action)).toEqual(['grant', 'revoke']);
  });

  it('PATCH /account/settings sets auto_publish_threshold (0..1) alone or with the mode, without recording consent', async () => {
    const jwt = await signIn(server, smtp, 'threshold@example.com');
    for (const body of [
      { auto_publish_threshold: 1.5 },
      { auto_publish_threshold: -0.1 },
      { auto_publish_threshold: 'high' },
    ])
      expect((await patch(jwt, body)).status).toBe(400);
    const res = await patch(jwt, { auto_publish_threshold: 0.9 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      autonomous_extraction_mode: 'off',
      auto_publish_threshold: 0.9,
      consent_recorded: false,
    });
    expect((await settings(jwt)).auto_publish_threshold).toBe(0.9);
    const both = await (
      await patch(jwt, { autonomous_extraction_mode: 'automatic', auto_publish_threshold: 0.5 })
    ).json();
    expect(both).toMatchObject({
      autonomous_extraction_mode: 'automatic',
      auto_publish_threshold: 0.5,
      consent_recorded: true,
    });
  });
});
