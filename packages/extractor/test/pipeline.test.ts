import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Conversation } from '../src/conversation.js';
import { HeuristicModel } from '../src/model/heuristic.js';
import type { Model } from '../src/model/model.js';
import { chunkTranscript } from '../src/pipeline/chunk.js';
import { jaccard, shingles } from '@axle/sdk/similarity';
import { dedupe } from '../src/pipeline/dedup.js';
import { renderConversation } from '../src/pipeline/render.js';
import { applyRubric, scoreContent } from '../src/pipeline/rubric.js';
import { resolveConfig, runPipeline } from '../src/pipeline/run.js';
import { readClaudeCode } from '../src/readers/claude-code.js';
import { readOpenClawMemory, readOpenClawSession } from '../src/readers/openclaw.js';
import { readPlainText } from '../src/readers/plain.js';
import type { ScrubResult } from '@axle/scrub';
import { LearnRequest } from '@axle/sdk';
import { learnRequestBody } from '../src/submit/client.js';

const text = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');

/** A clock that advances 5 ms per reading, so processing_time_ms is deterministic. */
const steppingClock = () => {
  let t = 1_000;
  return () => (t += 5);
};

const GOOD_DRAFT = {
  title: 'Vitest fails with ERR_MODULE_NOT_FOUND after switching to ESM',
  body:
    'Problem: `npm test` failed with ERR_MODULE_NOT_FOUND for `./db/pool` after setting "type": "module". ' +
    'Root cause: Node ESM resolution never adds extensions. Fixed by writing `./db/pool.js` in imports, because ' +
    'tsc with --moduleResolution NodeNext maps .js to the .ts source; `.ts` fails with TS5097 instead.',
  category: 'code-execution',
  tags: ['node', 'esm', 'typescript'],
  task_context: 'Migrating a TypeScript API package to ESM under Node 20',
  outcome: 'success',
  quality_self_assessment: { specificity: 5, actionability: 4, novelty: 4, completeness: 5 },
};

const conv = (n: number): Conversation => ({
  source: 'plain',
  messages: Array.from({ length: n }, (_, i) => ({
    role: 'user' as const,
    kind: 'text' as const,
    text: `message ${i} `.repeat(20),
  })),
});

const fixedModel = (perChunk: (i: number) => unknown[] | Error): Model => ({
  name: 'fixed',
  async extract(input) {
    const r = perChunk(input.index);
    if (r instanceof Error) throw r;
    return r;
  },
});

describe('config', () => {
  it('defaults to the spec values and rejects an overlap not smaller than the chunk', () => {
    expect(resolveConfig()).toEqual({
      chunk_size: 4000,
      chunk_overlap: 200,
      quality_threshold: 14,
      quality_min_dimension: 3,
      max_learnings: 20,
    });
    expect(() => resolveConfig({ chunk_size: 100, chunk_overlap: 100 })).toThrow(RangeError);
  });
});

describe('chunking', () => {
  it('covers the whole transcript with overlapping windows', () => {
    const c = conv(60);
    const r = renderConversation(c);
    const chunks = chunkTranscript(c, r, 1000, 200);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks[0]?.text.startsWith(r.text.slice(0, 50))).toBe(true);
    expect(r.text.endsWith(chunks[chunks.length - 1]?.text ?? 'x')).toBe(true);
    for (const ch of chunks) expect(ch.text.length).toBeLessThanOrEqual(1000);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]?.text ?? '';
      expect(prev.endsWith(chunks[i]?.text.slice(0, 200) ?? 'x')).toBe(true);
    }
  });
});

describe('rubric', () => {
  it('passes only with total ≥ threshold and every dimension ≥ the minimum', () => {
    expect(applyRubric({ specificity: 4, actionability: 4, novelty: 3, completeness: 3 }, 14, 3).pass).toBe(true);
    expect(applyRubric({ specificity: 5, actionability: 5, novelty: 2, completeness: 5 }, 14, 3)).toMatchObject({
      total: 17,
      pass: false,
    });
    expect(applyRubric({ specificity: 3, actionability: 3, novelty: 3, completeness: 4 }, 14, 3).pass).toBe(false);
  });

  it('scores concrete resolved drafts above generic advice', () => {
    const strong = scoreContent(GOOD_DRAFT);
    const weak = scoreContent({
      title: 'Be careful with tests',
      body: 'Make sure to always double-check your tests, it is best practice in general.',
      task_context: '',
    });
    const sum = (s: typeof strong) => s.specificity + s.actionability + s.novelty + s.completeness;
    expect(sum(strong)).toBeGreaterThanOrEqual(14);
    expect(sum(weak)).toBeLessThan(10);
  });
});

describe('dedup', () => {
  it('drops near-duplicates by shingle Jaccard, keeping the first', () => {
    const a = 'pg_dump refuses to dump a server newer than itself; install the matching client version';
    const b = 'pg_dump refuses to dump a server newer than itself; install the matching client version now';
    expect(jaccard(shingles(a), shingles(b))).toBeGreaterThan(0.6);
    expect(dedupe([a, b, 'something unrelated entirely about redis eviction'], (s) => s)).toEqual([
      a,
      'something unrelated entirely about redis eviction',
    ]);
  });

  // Found by reading: its own copy of the shingles matched only [a-z0-9_], so a text in another script had none, and
  // two empty sets are identical: every learning written in Japanese, say, was dropped as a duplicate of the first.
  it('compares texts in any script as the server does: different learnings in Japanese or Russian are both kept', () => {
    const japanese = [
      'データベースの接続がタイムアウトした場合は、接続プールの上限を確認してから再試行してください。',
      '画像の生成に失敗したときは、プロンプトの長さを短くしてもう一度送信すると解決することが多い。',
    ];
    const russian = [
      'Для загрузки файлов в хранилище используйте подписанные ссылки с коротким сроком действия.',
      'Если сборка падает из-за нехватки памяти, увеличьте лимит кучи через переменную окружения.',
    ];
    for (const pair of [japanese, russian]) {
      expect(jaccard(shingles(pair[0]!), shingles(pair[1]!))).toBe(0);
      expect(dedupe(pair, (s) => s)).toEqual(pair);
      // The same text again is still a duplicate.
      expect(dedupe([pair[0]!, pair[0]!], (s) => s)).toEqual([pair[0]]);
    }
  });
});

describe('runPipeline', () => {
  it('turns the Claude Code fixture into a drafted arc with the heuristic model', async () => {
    const { conversation } = readClaudeCode(text('claude-code-session.jsonl'));
    const result = await runPipeline(conversation, { model: new HeuristicModel(), clock: steppingClock() });
    expect(result.success).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.learnings).toHaveLength(1);
    const d = result.learnings[0];
    expect(d?.title).toContain('ERR_MODULE_NOT_FOUND');
    expect(d?.body).toContain('pool.js');
    expect(d?.category).toBe('code-execution');
    expect(d?.outcome).toBe('success');
    expect(d?.tags).toContain('npm');
    expect(result.stats).toMatchObject({
      chunks_processed: 1,
      chunks_failed: 0,
      final_count: 1,
      processing_time_ms: 5,
    });
    expect(result.stats.raw_candidates).toBeGreaterThanOrEqual(result.stats.passed_quality_gate);
    expect(result.stats.passed_dedup).toBe(1);
  });

  // Found by reading: with no request of the user's in the session, the heuristic drafted an empty task_context,
  // which POST /learn refuses, so the draft was shown, queued, and then rejected by the server.
  it('drafts a task context the server accepts from a session without a request of the user', async () => {
    const { conversation } = readClaudeCode(text('claude-code-session.jsonl'));
    const agentOnly = conversation.messages.filter((m) => !(m.role === 'user' && m.kind === 'text'));
    const result = await runPipeline({ ...conversation, messages: agentOnly }, { model: new HeuristicModel() });
    expect(result.learnings).toHaveLength(1);
    const d = result.learnings[0]!;
    expect(d.task_context).toContain('ERR_MODULE_NOT_FOUND');
    expect(d.task_context).not.toContain('/home/');
    expect(LearnRequest.safeParse(learnRequestBody(d, 'claude-code')).success).toBe(true);
  });

  it("drops a model's draft that POST /learn would refuse, naming why, and keeps the rest", async () => {
    const model = fixedModel(() => [
      { ...GOOD_DRAFT, task_context: undefined },
      { ...GOOD_DRAFT, task_context: '\u200b\u200b' },
      { ...GOOD_DRAFT, title: 'T'.repeat(201) },
      { ...GOOD_DRAFT, tags: ['node', 'x'.repeat(51)] },
      { ...GOOD_DRAFT, body: `${GOOD_DRAFT.body} ${'y'.repeat(20_000)}` },
      GOOD_DRAFT,
    ]);
    const result = await runPipeline(conv(3), { model });
    expect(result.errors.filter((e) => e.stage === 'validate').map((e) => e.message)).toEqual([
      expect.stringMatching(/^task_context must be at least 1 visible character/),
      expect.stringMatching(/^task_context must be at least 1 visible character/),
      'title must be at most 200 characters',
      'tag must be at most 50 characters',
      'body must be at most 20000 characters',
    ]);
    expect(result.learnings).toHaveLength(1);
    for (const d of result.learnings) expect(LearnRequest.safeParse(learnRequestBody(d, 'plain')).success).toBe(true);
  });

  it('drops a draft that redaction makes too long for POST /learn', async () => {
    // 200 characters: "Bo Wu" becomes "[PERSON_1]", five longer.
    const title = `Contact: Bo Wu, ERR_MODULE_NOT_FOUND fix ${'z'.repeat(159)}`;
    expect(title).toHaveLength(200);
    const result = await runPipeline(conv(3), { model: fixedModel(() => [{ ...GOOD_DRAFT, title }]) });
    expect(result.learnings).toEqual([]);
    expect(result.errors).toEqual([
      { stage: 'validate', chunk: 0, message: 'draft dropped after redaction: title must be at most 200 characters' },
    ]);
  });

  it('drafts arcs from OpenClaw sessions, memory notes and plain text', async () => {
    const model = new HeuristicModel();
    const session = await runPipeline(readOpenClawSession(text('openclaw-session.jsonl')).conversation, { model });
    expect(session.learnings[0]?.body).toContain('Retry-After');
    expect(session.learnings[0]?.category).toBe('web-interaction');
    const memory = await runPipeline(readOpenClawMemory(text('openclaw/memory/2026-11-19.md')).conversation, { model });
    expect(memory.learnings.map((l) => l.category)).toEqual(['storage-state']);
    expect(memory.learnings[0]?.title).toContain('pg_dump');
    const plain = await runPipeline(readPlainText(text('plain-transcript.txt')).conversation, {
      model,
      config: { quality_threshold: 10 },
    });
    expect(plain.success).toBe(true);
    expect(plain.stats.chunks_processed).toBe(1);
  });

  it('records a failing chunk as an error and keeps going', async () => {
    const model = fixedModel((i) => (i === 1 ? new Error('model exploded') : [GOOD_DRAFT]));
    const result = await runPipeline(conv(40), {
      model,
      config: { chunk_size: 1000, chunk_overlap: 100 },
      clock: steppingClock(),
    });
    expect(result.success).toBe(true);
    expect(result.errors).toContainEqual({ stage: 'model', chunk: 1, message: 'model exploded' });
    expect(result.stats.chunks_failed).toBe(1);
    expect(result.stats.chunks_processed).toBeGreaterThan(1);
    // every chunk proposed the same draft: dedup leaves one
    expect(result.stats.passed_quality_gate).toBe(result.stats.chunks_processed);
    expect(result.stats.passed_dedup).toBe(1);
    expect(result.learnings).toHaveLength(1);
  });

  it('reports invalid candidates, gates on quality and caps at max_learnings', async () => {
    const topics = [
      [
        'redis',
        'ECONNREFUSED',
        'the container binds 127.0.0.1 only',
        'set `bind 0.0.0.0` in redis.conf and run `docker compose up -d`',
      ],
      [
        'sqlite',
        'SQLITE_BUSY',
        'two writers share the file without WAL',
        'run `PRAGMA journal_mode=WAL` at startup and use one connection per writer',
      ],
      [
        'nginx',
        'ERR_TOO_MANY_REDIRECTS',
        'the proxy drops X-Forwarded-Proto',
        'add `proxy_set_header X-Forwarded-Proto $scheme` and set `trust proxy` in the app',
      ],
    ];
    const distinct = (i: number) => {
      const [tool, code, cause, fix] = topics[i] ?? [];
      return {
        ...GOOD_DRAFT,
        title: `${tool} fails with ${code} under load`,
        body: `Problem: \`${tool}\` failed with ${code} on v${i + 1}.4.2 because ${cause}. Fixed: ${fix}; it works now because the root cause is gone.`,
      };
    };
    const model = fixedModel(() => [
      distinct(0),
      distinct(1),
      distinct(2),
      { ...GOOD_DRAFT, category: 'communication' },
      { ...GOOD_DRAFT, quality_self_assessment: { specificity: 2, actionability: 5, novelty: 5, completeness: 5 } },
      'not an object',
    ]);
    const result = await runPipeline(conv(3), { model, config: { max_learnings: 2 } });
    expect(result.stats.raw_candidates).toBe(6);
    expect(result.errors.filter((e) => e.stage === 'validate').map((e) => e.message)).toEqual([
      'category "communication" is not a learning category',
      'candidate is not an object',
    ]);
    expect(result.stats.passed_quality_gate).toBe(3);
    expect(result.stats.final_count).toBe(2);
    expect(result.learnings).toHaveLength(2);
  });

  it('drops drafts in which the scrubber still finds something and scrubs chunks before the model sees them', async () => {
    const seen: string[] = [];
    const model: Model = {
      name: 'spy',
      async extract(input) {
        seen.push(input.text);
        return [
          GOOD_DRAFT,
          {
            ...GOOD_DRAFT,
            title: 'Leaky draft mentioning ops@example.com here',
            body: `${GOOD_DRAFT.body} Contact ops@example.com.`,
          },
        ];
      },
    };
    const c: Conversation = {
      source: 'plain',
      messages: [{ role: 'user', kind: 'text', text: `mail me at dev@example.com ${'x '.repeat(80)}` }],
    };
    const result = await runPipeline(c, { model });
    expect(seen[0]).not.toContain('dev@example.com');
    expect(seen[0]).toContain('[REDACTED:email]');
    expect(result.stats.passed_quality_gate).toBe(2);
    expect(result.stats.passed_sensitivity).toBe(1);
    expect(result.learnings.map((l) => l.title)).toEqual([GOOD_DRAFT.title]);
    const sens = result.errors.find((e) => e.stage === 'sensitivity');
    expect(sens?.message).toBe('draft dropped: scrubber matched email');
  });

  it('no chunk hands the model a piece of a private key, also when a chunk starts inside the key', async () => {
    const line = (i: number) =>
      `${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.slice(i % 7)}${i}`.slice(0, 64);
    const keyLines = Array.from({ length: 40 }, (_, i) => line(i).padEnd(64, 'Q'));
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${keyLines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----`;
    const seen: string[] = [];
    const model: Model = {
      name: 'spy',
      async extract(input) {
        seen.push(input.text);
        return [];
      },
    };
    const c: Conversation = {
      source: 'plain',
      messages: [
        { role: 'user', kind: 'text', text: `cat ~/.ssh/id_ed25519 printed:\n${key}\nthen the deploy went on.` },
      ],
    };
    await runPipeline(c, { model, config: { chunk_size: 1000, chunk_overlap: 100 } });
    expect(seen.length).toBeGreaterThan(2);
    for (const chunk of seen) for (const l of keyLines) expect(chunk).not.toContain(l.slice(8, 40));
  });

  it('never drafts a password the session passed on a command line (mysql -pPASSWORD)', async () => {
    // The heuristic extractor quotes the commands of an error -> fix arc from the session's messages, which reach it
    // scrubbed: the draft keeps the lesson with the password redacted.
    const { conversation } = readClaudeCode(text('claude-code-mysql-password.jsonl'));
    const result = await runPipeline(conversation, { model: new HeuristicModel() });
    expect(JSON.stringify(result.learnings)).not.toContain('Qx7rT2vLm9Zp');
    expect(result.learnings.map((l) => l.body).join('\n')).toContain('-p[REDACTED:secret_assignment]');
  });

  it('never drafts the part of a token the heuristic extractor keeps when it shortens a command', async () => {
    // The heuristic quotes a command cut to 160 characters: a token straddling the cut leaves a prefix the draft's
    // own scrub no longer recognises, so the messages it reads must already be scrubbed.
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
    const command = `curl -sS -X POST ${'x'.repeat(103)} -H "Authorization: token ${token}" https://api.github.com/x`;
    const conversation: Conversation = {
      source: 'claude-code',
      messages: [
        {
          role: 'user',
          kind: 'text',
          text: 'The deploy workflow dispatch fails with Error: HTTP 401 Bad credentials when I trigger it from the script.',
        },
        { role: 'assistant', kind: 'tool_use', tool: 'Bash', text: JSON.stringify({ command }) },
        { role: 'tool', kind: 'tool_result', tool: 'Bash', is_error: true, text: 'Error: HTTP 401 Bad credentials' },
        {
          role: 'assistant',
          kind: 'tool_use',
          tool: 'Bash',
          text: JSON.stringify({ command: command.replace('token ', 'Bearer ') }),
        },
        { role: 'tool', kind: 'tool_result', tool: 'Bash', text: 'HTTP 204' },
        {
          role: 'assistant',
          kind: 'text',
          text: 'Fixed. Fine-grained tokens need the Bearer scheme instead of token, because the API refuses the legacy one.',
        },
      ],
    };
    const result = await runPipeline(conversation, { model: new HeuristicModel() });
    expect(result.stats.raw_candidates).toBeGreaterThan(0);
    expect(JSON.stringify(result.learnings)).not.toContain(token.slice(0, 10));
  });

  it('refuses a transcript under 100 characters and cuts one over 500000', async () => {
    const short = await runPipeline(
      { source: 'plain', messages: [{ role: 'user', kind: 'text', text: 'hi' }] },
      { model: new HeuristicModel() },
    );
    expect(short.success).toBe(false);
    expect(short.errors[0]?.stage).toBe('input');
    const passthrough = async (t: string): Promise<ScrubResult> => ({
      text: t,
      findings: [],
      report: { scrubber_version: 't', patterns_matched: [], clean: true },
    });
    let chars = 0;
    const counting: Model = {
      name: 'count',
      async extract(i) {
        chars = Math.max(chars, i.index);
        return [];
      },
    };
    const big: Conversation = {
      source: 'plain',
      messages: [{ role: 'user', kind: 'text', text: 'y'.repeat(600_000) }],
    };
    const r = await runPipeline(big, {
      model: counting,
      scrubber: passthrough,
      config: { chunk_size: 100_000, chunk_overlap: 0 },
    });
    expect(r.stats.transcript_length).toBeGreaterThan(600_000);
    expect(r.errors[0]).toMatchObject({ stage: 'input', message: expect.stringContaining('cut to the first 500000') });
    expect(chars).toBe(4); // five chunks of 100000 characters
  });
});
