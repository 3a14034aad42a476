import { describe, expect, it } from 'vitest';
import { screenCredentials } from '../src/domain/screens/credentials.js';
import { SCREEN_TARGETS, screenLearning, screenMetrics } from '../src/domain/screens/index.js';
import { loadScreenCorpus } from './screens-corpus.js';

describe('screenCredentials', () => {
  it('meets its recall and false-positive targets on the labelled corpus', () => {
    const items = loadScreenCorpus('credentials');
    expect(items.filter((i) => i.flagged).length).toBeGreaterThanOrEqual(30);
    expect(items.filter((i) => !i.flagged).length).toBeGreaterThanOrEqual(30);
    const m = screenMetrics(items, screenCredentials);
    const target = SCREEN_TARGETS.credentials!;
    expect(m.recall, JSON.stringify(m.misses)).toBeGreaterThanOrEqual(target.recall);
    expect(m.falsePositiveRate, JSON.stringify(m.falsePositives)).toBeLessThanOrEqual(target.falsePositiveRate);
  });

  it('redacts every finding and never returns the raw secret', () => {
    const secret = 'sk_live_51HxYzAbCdEfGhIjKlMnOpQrStUv';
    const r = screenCredentials(`export STRIPE_KEY=${secret} and mail jennifer.walsh@gmail.com`);
    expect(r.flagged).toBe(true);
    expect(r.findings).toEqual(expect.arrayContaining(['email']));
    expect(r.redacted).not.toContain(secret);
    expect(r.redacted).not.toContain('jennifer.walsh');
    expect(r.redacted).toContain('[REDACTED:email]');
  });

  it('keeps documentation addresses, private IPs and published test cards, redacting the rest beside them', () => {
    const text =
      'Mail bob@example.com or bob.real@gmail.com; the DB is at 10.0.0.5, the API at 34.201.17.88; ' +
      'card 4242 4242 4242 4242.';
    const r = screenCredentials(text);
    expect(r.findings.sort()).toEqual(['email', 'ip_address']);
    expect(r.redacted).toBe(
      'Mail bob@example.com or [REDACTED:email]; the DB is at 10.0.0.5, the API at [REDACTED:ip_address]; ' +
        'card 4242 4242 4242 4242.',
    );
  });

  it('finds person names and street addresses (the thorough tier), numbered across the fields of one learning', () => {
    const r = screenCredentials('Ask Ana Souza; she works at 221B Baker Street, London NW1 6XE.');
    expect(r.findings).toEqual(['person', 'street_address']);
    expect(r.redacted).toBe('Ask [PERSON_1]; she works at [ADDRESS_1].');
    const s = screenLearning({
      title: 'Ana Souza rotates the key',
      body: 'Ask Souza or Lars Eriksen before rotating the Redis password.',
      task_context: 'billing',
      tags: ['redis'],
    });
    expect(s.redacted.title).toBe('[PERSON_1] rotates the key');
    expect(s.redacted.body).toBe('Ask [PERSON_1] or [PERSON_2] before rotating the Redis password.');
    expect(s.sensitivity_findings).toEqual(['person']);
  });

  it('returns clean text unchanged', () => {
    const text = 'Rotate the API token every 90 days; read it from Vault at startup.';
    expect(screenCredentials(text)).toEqual({ flagged: false, findings: [], redacted: text });
  });
});
