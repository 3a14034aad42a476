// `npm run screens:exemplars`: embeds the tuned and dev items of the screen corpora (test/corpora/screens) as
// the semantic screens' exemplars, scores each dev item exactly as a learning is scored against the others
// (leave-one-out), chooses each screen's margin on those scores and writes catalog/screen-exemplars.json.
// The holdout split is never read.
// Usage: node packages/server/dist/scripts/build-screen-exemplars.js [out.json]
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LabelledItem } from '../domain/screens/evaluate.js';
import {
  SEMANTIC_SCREENS,
  type ScreenExemplars,
  type SemanticModel,
  type SemanticScreenName,
  chooseMargin,
} from '../domain/screens/semantic.js';
import { EmbedderClient } from '../search/embedder.js';
import { BUNDLED_SCREEN_EXEMPLARS, encodeScreenExemplars } from '../search/screen-exemplars.js';
import { semanticVerdicts } from '../services/semantic-screens.js';

/** The most dev negatives a margin may hold. */
const MAX_DEV_FALSE_POSITIVE_RATE = 0.05;
const BATCH = 16;

const corpus = (name: string): LabelledItem[] =>
  (
    JSON.parse(
      fs.readFileSync(fileURLToPath(new URL(`../../test/corpora/screens/${name}.json`, import.meta.url)), 'utf8'),
    ) as { items: LabelledItem[] }
  ).items;

const [out = BUNDLED_SCREEN_EXEMPLARS] = process.argv.slice(2);
const embedder = new EmbedderClient();
const started = performance.now();
try {
  await embedder.init();
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) vectors.push(...(await embedder.embed(texts.slice(i, i + BATCH))));
    return vectors;
  };
  const names = Object.keys(SEMANTIC_SCREENS) as SemanticScreenName[];
  // Exemplars: every tuned and dev item (the holdout split is never read).
  const labelled = Object.fromEntries(names.map((name) => [name, corpus(name).filter((i) => i.split !== 'holdout')]));
  const all = [...new Set(names.flatMap((name) => labelled[name]!.map((i) => i.text)))];
  const embedded = await embed(all);
  const vectors = new Map(all.map((text, i) => [text, embedded[i]!]));
  const texts = {} as Record<SemanticScreenName, { positives: string[]; negatives: string[] }>;
  for (const name of names) {
    // A screen's clean exemplars are its own hard negatives and every item of the other screens: advice,
    // sensitive stories and injections are each clean text to the other two screens.
    const positives = labelled[name]!.filter((i) => i.flagged).map((i) => i.text);
    const others = names.filter((n) => n !== name).flatMap((n) => labelled[n]!.map((i) => i.text));
    const own = labelled[name]!.filter((i) => !i.flagged).map((i) => i.text);
    texts[name] = { positives, negatives: [...new Set([...own, ...others])].filter((t) => !positives.includes(t)) };
  }
  /** A screen's exemplars, less one text (a dev item is scored without its own vector). */
  const exemplars = (name: SemanticScreenName, margin: number, without?: string): ScreenExemplars => ({
    positives: texts[name].positives.filter((t) => t !== without).map((t) => vectors.get(t)!),
    negatives: texts[name].negatives.filter((t) => t !== without).map((t) => vectors.get(t)!),
    margin,
  });
  const model = {} as Record<SemanticScreenName, ScreenExemplars>;
  for (const name of names) {
    // Margins from the dev split, each item scored leave-one-out: as an unseen text would be.
    const scored: Array<{ score: number; flagged: boolean }> = [];
    for (const item of corpus(name).filter((i) => i.split === 'dev')) {
      const leaveOut = Object.fromEntries(names.map((n) => [n, exemplars(n, 0, item.text)])) as SemanticModel;
      const { verdicts } = await semanticVerdicts(embed, leaveOut, { chunked: item.text, whole: item.text });
      scored.push({ score: verdicts[name].score, flagged: item.flagged });
    }
    const margin = chooseMargin(scored, MAX_DEV_FALSE_POSITIVE_RATE);
    if (!Number.isFinite(margin)) throw new Error(`${name}: the dev split needs positives and negatives`);
    model[name] = exemplars(name, margin);
    const held = (f: boolean) => scored.filter((s) => s.flagged === f && s.score > margin).length;
    const count = (f: boolean) => scored.filter((s) => s.flagged === f).length;
    process.stderr.write(
      `${name}: ${model[name].positives.length}+${model[name].negatives.length} exemplars, margin ${margin.toFixed(4)}, ` +
        `dev (leave-one-out) recall ${held(true)}/${count(true)}, false positives ${held(false)}/${count(false)}\n`,
    );
  }
  fs.writeFileSync(out, encodeScreenExemplars(model));
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`screen exemplars in ${secs} s -> ${out} (${(fs.statSync(out).size / 1024).toFixed(0)} KiB)\n`);
} finally {
  await embedder.close();
}
