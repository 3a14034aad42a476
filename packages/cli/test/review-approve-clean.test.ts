import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, type Smtp, startMailingServer } from '../../../test/support/identity.js';
import type { TestServer } from '../../../test/support/server.js';
import { ADMIN_TOKEN, contributor, learningBody, publish } from '../../server/test/knowledge-helpers.js';
import { axle, tempHome, writeAxleConfig } from './helpers.js';

const good = { specificity: 5, actionability: 5, novelty: 4, completeness: 4 };

// The server approves at most 100 clean items a call (APPROVE_CLEAN_MAX) and leaves the rest for the next call.
describe('axle review --approve-clean with more clean items than one call approves', () => {
  let smtp: Smtp;
  let server: TestServer;
  let stop: () => Promise<void>;
  let home: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailingServer({ AXLE_ADMIN_TOKEN: ADMIN_TOKEN }));
    ({ headers } = await contributor(server, smtp, 'many@example.com'));
    home = tempHome();
    writeAxleConfig(home, { server: server.url, api_key: headers['x-api-key'] });
    await publish(server, headers, learningBody(0));
  });
  afterAll(() => stop?.());

  it('approves every clean item, not only the first 100', async () => {
    for (let n = 1; n <= 105; n++) {
      // Past the per-account submission limits (20 a minute, 100 an hour) the clock moves on.
      if (n % 20 === 0) server.clock.advance(3_600_000);
      const body = learningBody(n, { submission_channel: 'extraction', quality_self_assessment: good });
      const res = await post(server, '/learn', body, headers);
      expect(res.status, await res.clone().text()).toBe(201);
    }
    const dry = await axle(['review', '--approve-clean', '--json'], { home });
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, selected_count: 105 });

    const run = await axle(['review', '--approve-clean', '--confirm', '--json'], { home });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { results: Array<{ ok: boolean }> };
    expect(out.results).toHaveLength(105);
    expect(out.results.every((r) => r.ok)).toBe(true);
    const pending = (await (await fetch(`${server.url}/account/pending`, { headers })).json()) as {
      pending_count: number;
    };
    expect(pending.pending_count).toBe(0);
  }, 120_000);
});
