// The semantic screens with the real sentence model (a worker, as the server runs it): the committed exemplars
// match the corpora, the combined screens meet their targets on the holdout split, and the service falls back
// to the regex screens (saying so in the log) whenever the model cannot run.
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMBINED_HOLDOUT_TARGETS,
  type LabelledItem,
  SCREENS,
  SEMANTIC_SCREENS,
  type SemanticScreenName,
  screenLearning,
  screenedTexts,
  screenMetrics,
} from '../src/domain/screens/index.js';
import { taskWindow } from '../src/domain/screens/off-task.js';
import { createLogger } from '../src/logger.js';
import { EmbedderClient, EmbedderPool } from '../src/search/embedder.js';
import { readScreenExemplars } from '../src/search/screen-exemplars.js';
import { createSemanticScreens, semanticVerdicts } from '../src/services/semantic-screens.js';

const embedder = new EmbedderClient();
const ready = { state: () => 'ready', embedQueued: (texts: string[]) => embedder.embed(texts) };
const exemplars = readScreenExemplars();
const names = Object.keys(SEMANTIC_SCREENS) as SemanticScreenName[];

const corpus = (name: string): LabelledItem[] =>
  (
    JSON.parse(fs.readFileSync(new URL(`./corpora/screens/${name}.json`, import.meta.url), 'utf8')) as {
      items: LabelledItem[];
    }
  ).items;

function capture() {
  const lines: Array<{ level: number; msg: string; reason?: string }> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger('debug', stream), lines };
}
const flush = () => new Promise((r) => setImmediate(r));

beforeAll(async () => {
  await embedder.init();
}, 60_000);
afterAll(async () => {
  await embedder.close();
});

describe('screen exemplars', () => {
  it('are up to date with the corpora: a vector per tuned or dev item, never a holdout one, and a finite margin', () => {
    const labelled = (name: string) => corpus(name).filter((i) => i.split !== 'holdout');
    for (const name of names) {
      const positives = new Set(
        labelled(name)
          .filter((i) => i.flagged)
          .map((i) => i.text),
      );
      const negatives = new Set(
        names.flatMap((n) =>
          labelled(n)
            .filter((i) => n !== name || !i.flagged)
            .map((i) => i.text),
        ),
      );
      for (const t of positives) negatives.delete(t);
      expect(exemplars[name].positives.length, name).toBe(positives.size);
      expect(exemplars[name].negatives.length, name).toBe(negatives.size);
      expect(Number.isFinite(exemplars[name].margin)).toBe(true);
    }
  });
});

describe('regex and semantic screens combined, on the holdout split', () => {
  it.each(names)(
    '%s meets its combined targets and recalls more than the regex screen alone',
    async (name) => {
      const items = corpus(name).filter((i) => i.split === 'holdout');
      const semantic = new Map<string, boolean>();
      for (const item of items) {
        const v = await semanticVerdicts(ready.embedQueued, exemplars, { chunked: item.text, whole: item.text });
        semantic.set(item.text, v.verdicts[name].flagged);
      }
      const regex = screenMetrics(items, SCREENS[name]!);
      const combined = screenMetrics(items, (text) => ({
        flagged: SCREENS[name]!(text).flagged || semantic.get(text)!,
      }));
      const target = COMBINED_HOLDOUT_TARGETS[name]!;
      expect(combined.positives).toBeGreaterThanOrEqual(30);
      expect(combined.negatives).toBeGreaterThanOrEqual(30);
      expect(combined.recall, JSON.stringify(combined.misses.map((i) => i.note))).toBeGreaterThanOrEqual(target.recall);
      expect(
        combined.falsePositiveRate,
        JSON.stringify(combined.falsePositives.map((i) => i.note)),
      ).toBeLessThanOrEqual(target.falsePositiveRate);
      expect(combined.recall).toBeGreaterThan(regex.recall);
    },
    120_000,
  );
});

describe('createSemanticScreens', () => {
  const learning = (body: string) => ({
    title: 'Kafka consumer rebalances',
    body,
    task_context: 'prod cluster',
    tags: ['kafka'],
  });
  const technical =
    'Rebalance storms stopped once max.poll.interval.ms exceeded the slowest batch; we also cut max.poll.records to 200.';
  const sensitive = `${technical} The kid who reported the bug is only eleven and his dad wants us to delete his account.`;

  /** The ready model, recording the texts of each call. */
  const countingModel = () => {
    const embedded: string[][] = [];
    const counting = {
      ...ready,
      embedQueued: (texts: string[]) => {
        embedded.push(texts);
        return ready.embedQueued(texts);
      },
    };
    return { embedded, counting };
  };

  it('flags what the regex screens miss and leaves a technical learning alone', async () => {
    const { logger } = capture();
    const { embedded, counting } = countingModel();
    const screens = createSemanticScreens({ model: counting, logger });
    expect(screenLearning(learning(sensitive)).flags).toEqual([]);
    expect(await screens.screen(learning(sensitive))).toEqual({ flags: ['content_sensitivity'], offTask: [] });
    // One model call, for the one sentence that concerns a person: the technical sentences are not embedded.
    expect(embedded).toEqual([
      ['The kid who reported the bug is only eleven and his dad wants us to delete his account.'],
    ]);
    expect(await screens.screen(learning(technical))).toEqual({ flags: [], offTask: [] });
    expect(embedded).toHaveLength(1);
  }, 30_000);

  it('measures requests against the task with the model: a request far from it is off task', async () => {
    const { logger } = capture();
    const screens = createSemanticScreens({ model: ready, logger });
    const off = learning(`${technical} Recommend a good fantasy novel to read this weekend.`);
    const result = await screens.screen(off);
    if (!result || !('offTask' in result)) throw new Error(`not screened: ${JSON.stringify(result)}`);
    expect(result.offTask).toHaveLength(1);
    const all = screenedTexts(off).all;
    expect(all.slice(result.offTask[0]!.start, result.offTask[0]!.end)).toBe(
      'Recommend a good fantasy novel to read this weekend.',
    );
    const near = await screens.screen(learning(`${technical} Explain why the rebalance replays the batch.`));
    expect(near).toMatchObject({ offTask: [] });
  }, 30_000);

  it('embeds only the requests its words find apart from the learning (the others cannot flag), with the task', async () => {
    const { logger } = capture();
    const { embedded, counting } = countingModel();
    const screens = createSemanticScreens({ model: counting, logger });
    const near = learning(`${technical} Explain why the rebalance replays the batch.`);
    expect(await screens.screen(near)).toEqual({ flags: [], offTask: [] });
    expect(embedded).toEqual([]);
    const both = learning(
      `${technical} Explain why the rebalance replays the batch. Recommend a good novel for the weekend.`,
    );
    const result = await screens.screen(both);
    expect(result).toMatchObject({ flags: [], offTask: [{ layer: 'off_task' }] });
    expect(embedded).toEqual([[taskWindow(screenedTexts(both).task), 'Recommend a good novel for the weekend.']]);
  }, 30_000);

  it('says in the log once that the regex screens run alone while the model warms, fails or lacks exemplars', async () => {
    const { logger, lines } = capture();
    let state = 'warming';
    let fail = false;
    const model = {
      state: () => state,
      embedQueued: (texts: string[]) => (fail ? Promise.reject(new Error('worker exited')) : embedder.embed(texts)),
    };
    const screens = createSemanticScreens({ model, logger });
    expect(await screens.screen(learning(technical))).toEqual({ skipped: 'sentence model warming' });
    expect(await screens.screen(learning(technical))).toEqual({ skipped: 'sentence model warming' });
    state = 'ready';
    fail = true;
    // A learning the model must read (a technical one needs no model call, so cannot fail).
    expect(await screens.screen(learning(sensitive))).toEqual({ skipped: 'embedding failed' });
    fail = false;
    expect(await screens.screen(learning(technical))).toEqual({ flags: [], offTask: [] });
    await flush();
    const warnings = lines.filter(
      (l) => l.msg === 'semantic screens unavailable; regex screens only' && l.level === 40,
    );
    expect(warnings.map((l) => l.reason)).toEqual(['sentence model warming', 'embedding failed']);
    expect(lines.some((l) => l.msg === 'semantic screens running again')).toBe(true);

    const broken = capture();
    const noExemplars = createSemanticScreens({
      model: ready,
      logger: broken.logger,
      exemplars: () => readScreenExemplars('/nonexistent/screen-exemplars.json'),
    });
    expect(await noExemplars.screen(learning(technical))).toEqual({ skipped: 'no exemplars' });
    await flush();
    expect(broken.lines.find((l) => l.level === 40)).toMatchObject({ reason: 'no exemplars' });
  }, 30_000);

  it('sheds to the regex screens, without a warning, the submissions past the embedding queue bound', async () => {
    const { logger, lines } = capture();
    // One worker and no room to wait: while it screens one submission, the others are refused at once.
    const pool = new EmbedderPool(1, undefined, 0);
    try {
      await pool.init();
      const screens = createSemanticScreens({
        model: { state: () => 'ready', embedQueued: (texts) => pool.embedQueued(texts) },
        logger,
      });
      const outcomes = await Promise.all([sensitive, sensitive, sensitive].map((b) => screens.screen(learning(b))));
      expect(outcomes).toEqual([
        { flags: ['content_sensitivity'], offTask: [] },
        { skipped: 'embedding queue full' },
        { skipped: 'embedding queue full' },
      ]);
      // Once the worker is free the next submission is screened semantically again.
      expect(await screens.screen(learning(sensitive))).toEqual({ flags: ['content_sensitivity'], offTask: [] });
      await flush();
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(lines.filter((l) => l.msg === 'semantic screens shed under load; regex screens only')).toHaveLength(2);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('runs nothing when semantic search is off, and says so once at start', async () => {
    const { logger, lines } = capture();
    const screens = createSemanticScreens({ model: undefined, logger });
    expect(await screens.screen(learning(sensitive))).toBeUndefined();
    await flush();
    expect(lines.filter((l) => /AXLE_SEMANTIC_SEARCH=off/.test(l.msg))).toHaveLength(1);
  });
});
