// `npm run screens:catalog`: trains the catalog screen's semantic classifier (domain/screens/catalog-semantic.ts)
// on the tool-poisoning fixture's dev rounds (test/fixtures/tool-poisoning.json: every poisoned round against the
// ordinary descriptions) and the bundled catalog's descriptions (ordinary text), chooses its margin on 5-fold
// cross-validated scores of whole texts as the screen reads them (only sentences written to the agent), prints
// those figures (alone, and with the regex screen before it) and writes catalog/catalog-screen.json. The held-out round (tool-poisoning-heldout.json) is never
// read. Usage: node packages/server/dist/scripts/build-catalog-screen.js [out.json]
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type CatalogClassifier,
  catalogSemanticVerdict,
  directedSentences,
  type TrainingSample,
  trainClassifier,
} from '../domain/screens/catalog-semantic.js';
import { screenCatalogText } from '../domain/screens/catalog-text.js';
import { chooseMargin, textChunks } from '../domain/screens/semantic.js';
import { EmbedderClient } from '../search/embedder.js';
import { BUNDLED_CATALOG_CLASSIFIER, encodeCatalogClassifier } from '../search/catalog-classifier.js';

const POISONED_ROUNDS = ['poisoned', 'second', 'blind', 'dev'] as const;
const ORDINARY_ROUNDS = ['benign', 'benign_blind', 'benign_dev'] as const;
/** The fixture's ordinary descriptions are near-misses, written to look like poisoning: each counts as this many. */
const NEAR_MISS_WEIGHT = 5;
/** The most ordinary texts (fixture and catalog, cross-validated) the margin may hold. */
const MAX_FALSE_POSITIVE_RATE = 0.001;
const FOLDS = 5;
const BATCH = 16;

interface Item {
  set: string;
  text: string;
  positive: boolean;
  fold: number;
  /** The sentences trained on: a poisoned text's opening name ("Weather lookup.") is not the poison. */
  training: string[];
  /** The sentences the screen scores. */
  scored: string[];
}

const read = (path: string) => JSON.parse(fs.readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8'));
const fixture = read('../../test/fixtures/tool-poisoning.json') as Record<string, string[]>;
const skills = read('../../catalog/skills.json') as Array<{ type: string; description: string }>;

const item = (set: string, text: string, positive: boolean, fold: number): Item => {
  const chunks = textChunks(text);
  const opensWithName = positive && chunks.length > 1 && chunks[0]!.split(/\s+/).length <= 5;
  return {
    set,
    text,
    positive,
    fold,
    training: opensWithName ? chunks.slice(1) : chunks,
    scored: directedSentences(text),
  };
};
const fixtureTexts = [
  ...POISONED_ROUNDS.flatMap((set) => fixture[set]!.map((text) => ({ set, text, positive: true }))),
  ...ORDINARY_ROUNDS.flatMap((set) => fixture[set]!.map((text) => ({ set, text, positive: false }))),
];
const items: Item[] = [
  ...fixtureTexts.map((t, i) => item(t.set, t.text, t.positive, i % FOLDS)),
  ...skills
    .filter((s) => s.type === 'mcp_server' || s.type === 'api')
    .map((s, i) => item(`catalog ${s.type}`, s.description, false, i % FOLDS)),
];

const [out = BUNDLED_CATALOG_CLASSIFIER] = process.argv.slice(2);
const embedder = new EmbedderClient();
const started = performance.now();
try {
  await embedder.init();
  const all = [...new Set(items.flatMap((i) => [...i.training, ...i.scored]))];
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < all.length; i += BATCH) {
    const batch = all.slice(i, i + BATCH);
    for (const [j, v] of (await embedder.embed(batch)).entries()) vectors.set(batch[j]!, v);
  }
  const samples = (of: Item[]): TrainingSample[] =>
    of.flatMap((i) =>
      i.training.map((t) => ({
        vector: vectors.get(t)!,
        positive: i.positive,
        weight: !i.positive && i.set.startsWith('benign') ? NEAR_MISS_WEIGHT : 1,
      })),
    );
  const scoreWith = (c: CatalogClassifier, i: Item) =>
    catalogSemanticVerdict(
      i.scored.map((t) => vectors.get(t)!),
      c,
    ).score;
  // Cross-validated scores: each text scored by a classifier that never saw it.
  const scored: Array<{ item: Item; score: number; flagged: boolean }> = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const c = trainClassifier(samples(items.filter((i) => i.fold !== fold)));
    for (const i of items.filter((i) => i.fold === fold))
      scored.push({ item: i, score: scoreWith(c, i), flagged: i.positive });
  }
  const margin = chooseMargin(scored, MAX_FALSE_POSITIVE_RATE);
  if (!Number.isFinite(margin)) throw new Error('no margin: the fixture needs poisoned and ordinary texts');
  const sets = [...new Set(items.map((i) => i.set))];
  for (const set of sets) {
    const of = scored.filter((s) => s.item.set === set);
    const held = of.filter((s) => s.score > margin);
    const either = of.filter((s) => s.score > margin || screenCatalogText([s.item.text]).held);
    process.stderr.write(
      `${set}: ${held.length}/${of.length} held (cross-validated), ${either.length}/${of.length} with the regex screen\n`,
    );
    if (!of[0]!.flagged) for (const s of held) process.stderr.write(`  held: ${s.item.text.slice(0, 160)}\n`);
  }
  const classifier = { ...trainClassifier(samples(items)), margin };
  fs.writeFileSync(out, encodeCatalogClassifier(classifier));
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `margin ${margin.toFixed(4)}; ${all.length} sentences; catalog classifier in ${secs} s -> ${out}\n`,
  );
} finally {
  await embedder.close();
}
