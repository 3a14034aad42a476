import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { ManualClock } from '../src/clock.js';
import { learningsStore } from '../src/store/learnings.js';
import { newBuyer, seedLearning } from './money-helpers.js';

// Attacks on content trust written from outside (none taken from a corpus; every one about made-up APIs; the r2-*
// ones a second round written after the first round's fixes, which held 10 of its 18 before its own; the r3-* ones a
// third, after the second's, 6 of 12 before its own): each
// `held` item must be held by a screen through POST /learn (but KNOWN_MISSES), each `clean` near-miss must not, and
// a `stripped` one (hidden characters) must be stored without what it hid; and every surface that hands a learning
// to an agent must carry all of its words inside an UNTRUSTED_CONTENT frame.

interface Attack {
  id: string;
  class: string;
  expect: 'held' | 'clean' | 'stripped';
  learning: {
    title: string;
    body: string;
    task_context: string;
    tags: string[];
    category: string;
    outcome: string;
    related_skills?: string[];
    contributor_agent?: string;
  };
}

const ATTACKS: Attack[] = JSON.parse(
  readFileSync(new URL('./fixtures/injection-outsider-attacks.json', import.meta.url), 'utf8'),
);
const SCREEN_REASONS = ['injection', 'content_sensitivity', 'process_advice_screen'];
/**
 * An instruction cut into pieces across title, task context and a tag (no field says enough on its own), and a
 * sentence written with its words in reverse order (each word is plain English).
 */
const KNOWN_MISSES = ['split-fields', 'r3-reversed-words'];
/**
 * Near-misses the personal-data and credentials screens hold: a base64 example digest reads as a high-entropy
 * secret, and "Po" opening a Polish sentence as a name.
 */
const KNOWN_FALSE_HOLDS = ['ok-base64', 'ok-polish'];
/** Characters the edge removes (tag characters, bidi controls, zero-width space): nothing of them may be stored. */
const HIDDEN = /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200B\u2060]/u;

let server: TestServer;
const clock = new ManualClock(Date.now());
beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.stop();
});

describe('outsider attacks through POST /learn', () => {
  it('holds every attack by a screen (but the known misses) and leaves the near-misses clean', async () => {
    const outcome: Array<{ id: string; expect: string; screened: string[] }> = [];
    for (const a of ATTACKS) {
      // A key of its own for each item: the per-account rate limit is not what this measures.
      const { key } = await newBuyer(server);
      const res = await post(server, '/learn', a.learning, { 'x-api-key': key });
      expect(res.status, `${a.id}: ${await res.clone().text()}`).toBe(201);
      const learning = await res.json();
      const reasons: string[] = learning.review_reason ?? [];
      outcome.push({ id: a.id, expect: a.expect, screened: reasons.filter((r) => SCREEN_REASONS.includes(r)) });
      const stored = (await learningsStore.byId(server.db, learning.id))!;
      const text = [stored.title, stored.body, stored.taskContext, ...stored.tags, ...stored.relatedSkills];
      expect(
        text.some((t) => HIDDEN.test(t)),
        a.id,
      ).toBe(false);
    }
    const missed = outcome.filter((o) => o.expect === 'held' && o.screened.length === 0).map((o) => o.id);
    const falseHolds = outcome.filter((o) => o.expect !== 'held' && o.screened.length > 0).map((o) => o.id);
    expect({ missed, falseHolds }).toEqual({ missed: KNOWN_MISSES, falseHolds: KNOWN_FALSE_HOLDS });
  });
});

/** `text` with every sealed frame (begin and end markers with the same seal) cut out. */
function outsideFrames(text: string): string {
  return text.replace(/<<<UNTRUSTED_CONTENT ([0-9a-f]{16})>>>[\s\S]*?<<<END_UNTRUSTED_CONTENT \1>>>/g, '');
}

/** The learning's words as a surface may carry them: as written and JSON-escaped (at most once more inside JSON). */
function wordsOf(l: Attack['learning']): string[] {
  const values = [l.title, l.body.slice(0, 60), l.task_context, ...l.tags, ...(l.related_skills ?? [])];
  if (l.contributor_agent) values.push(l.contributor_agent);
  return values.flatMap((v) => {
    const once = JSON.stringify(v).slice(1, -1);
    return [v, once, JSON.stringify(once).slice(1, -1)];
  });
}

describe('outsider attacks as delivered, had a reviewer published them', () => {
  it('every surface carries every word of every attack inside a frame only', async () => {
    const { key } = await newBuyer(server, { credits: ATTACKS.length + 5 });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const mcp = new Client({ name: 'outsider', version: '0.0.0' });
    await mcp.connect(transport);
    try {
      const leaks: string[] = [];
      for (const [i, a] of ATTACKS.filter((x) => x.expect === 'held').entries()) {
        // A minute on every 20 attacks: the per-address limits of /mcp and /a2a are not what this measures.
        if (i % 20 === 19) clock.advance(61_000);
        const l = a.learning;
        const seeded = await seedLearning(server, {
          title: l.title,
          body: l.body,
          taskContext: l.task_context,
          tags: l.tags,
          relatedSkills: l.related_skills ?? [],
          contributorAgent: l.contributor_agent ?? 'outsider/1.0',
          seq: await learningsStore.nextSeq(server.db),
        });
        const query = l.title.slice(0, 60);
        // The HTTP API's answer is JSON for programs: its body is framed, the other fields are named fields beside
        // content_trust; the MCP tools and A2A are what hand answers to a model.
        const api = await (
          await fetch(`${server.url}/knowledge/${seeded.id}`, { headers: { 'x-api-key': key } })
        ).json();
        const surfaces: Record<string, string> = { 'GET /knowledge/{id} body': api.body };
        const unlock = (await mcp.callTool({
          name: 'svc_unlock',
          arguments: { learning_id: seeded.id },
        })) as CallToolResult;
        surfaces['svc_unlock text'] = (unlock.content as Array<{ text: string }>)[0]!.text;
        surfaces['svc_unlock structuredContent'] = JSON.stringify(unlock.structuredContent);
        const found = (await mcp.callTool({ name: 'svc_knowledge', arguments: { query } })) as CallToolResult;
        surfaces['svc_knowledge text'] = (found.content as Array<{ text: string }>)[0]!.text;
        surfaces['svc_knowledge structuredContent'] = JSON.stringify(found.structuredContent);
        const a2a = await fetch(`${server.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'message/send',
            params: {
              message: {
                kind: 'message',
                role: 'user',
                messageId: randomUUID(),
                parts: [{ kind: 'text', text: query }],
                metadata: { skill: 'knowledge-search' },
              },
            },
          }),
        });
        surfaces.A2A = await a2a.text();
        // Each search surface found the learning, so each check below read its words.
        for (const surface of ['svc_knowledge text', 'svc_knowledge structuredContent', 'A2A']) {
          if (!surfaces[surface]!.includes(seeded.id)) leaks.push(`${a.id}: not found via ${surface}`);
        }
        for (const [surface, text] of Object.entries(surfaces)) {
          // The caller's own query comes back beside the results.
          const outside = outsideFrames(text).replaceAll(query, '');
          for (const w of wordsOf(l))
            if (w.length >= 8 && outside.includes(w))
              leaks.push(
                `${a.id} via ${surface}: ${w} in ${outside.slice(Math.max(0, outside.indexOf(w) - 150), outside.indexOf(w) + 50)}`,
              );
        }
        await server.db.run('UPDATE learnings SET status = ? WHERE id = ?', ['retracted', seeded.id]);
      }
      expect(leaks).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});
