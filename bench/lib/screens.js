// Recall and false-positive rate of each learning screen on its labelled corpus (packages/server/test/corpora):
// the regex screens on their tuned items, then on the holdout split the regex screens, the semantic screens
// and both combined (held when either flags), as POST /learn combines them.
import fs from 'node:fs';
import {
  COMBINED_HOLDOUT_TARGETS,
  SCREENS,
  SCREEN_TARGETS,
  SEMANTIC_SCREENS,
  screenMetrics,
} from '../../packages/server/dist/domain/screens/index.js';
import { readScreenExemplars } from '../../packages/server/dist/search/screen-exemplars.js';
import { semanticVerdicts } from '../../packages/server/dist/services/semantic-screens.js';

const corpus = (name) =>
  JSON.parse(
    fs.readFileSync(new URL(`../../packages/server/test/corpora/screens/${name}.json`, import.meta.url), 'utf8'),
  ).items;

const pad = (s, n) => String(s).padEnd(n);
const figures = (r) => `${pad(r.recall.toFixed(3), 8)}${pad(r.falsePositiveRate.toFixed(3), 7)}`;

/**
 * Each holdout item's verdict from the regex screen, the semantic screen and both, for one screen. `model`
 * embeds texts (the skills' semantic index once ready); each item is screened as a learning's text is.
 */
export async function holdoutVerdicts(name, model, exemplars = readScreenExemplars()) {
  const items = corpus(name).filter((i) => i.split === 'holdout');
  const out = [];
  for (const item of items) {
    const regex = SCREENS[name](item.text).flagged;
    const v = await semanticVerdicts((texts) => model.embed(texts), exemplars, {
      chunked: item.text,
      whole: item.text,
    });
    out.push({ item, regex, semantic: v.verdicts[name].flagged });
  }
  return out;
}

/** Holdout metrics of one screen for regex alone, semantic alone and combined. */
export function holdoutMetrics(verdicts) {
  const items = verdicts.map((v) => v.item);
  const by = (pick) => {
    const flagged = new Map(verdicts.map((v) => [v.item.text, pick(v)]));
    return screenMetrics(items, (text) => ({ flagged: flagged.get(text) }));
  };
  return { regex: by((v) => v.regex), semantic: by((v) => v.semantic), combined: by((v) => v.regex || v.semantic) };
}

/** Printable lines and PASS/FAIL checks for every screen; `model` is undefined when semantic search is not ready. */
export async function screenReport(model) {
  const lines = ['Learning screens: the regex screens on the items they were tuned on', ''];
  lines.push(`${pad('screen', 21)}${pad('items', 7)}${pad('recall', 8)}${pad('FPR', 7)}target`);
  const checks = [];
  for (const [name, screen] of Object.entries(SCREENS)) {
    const m = screenMetrics(
      corpus(name).filter((i) => i.split === undefined),
      screen,
    );
    const t = SCREEN_TARGETS[name];
    const target = `recall >= ${t.recall}, FPR <= ${t.falsePositiveRate}`;
    lines.push(`${pad(name, 21)}${pad(`${m.positives}+${m.negatives}`, 7)}${figures(m)}${target}`);
    checks.push([
      `${name} screen recall ${m.recall.toFixed(3)}, FPR ${m.falsePositiveRate.toFixed(3)} on tuned items (${target})`,
      m.recall >= t.recall && m.falsePositiveRate <= t.falsePositiveRate,
    ]);
  }
  lines.push(
    '',
    'On the holdout split (never used to tune a pattern, an exemplar or a margin): regex alone, semantic alone',
    '(nearest exemplars, margins chosen on the dev split) and combined (held when either flags)',
    '',
    `${pad('screen', 21)}${pad('items', 7)}${pad('regex', 15)}${pad('semantic', 15)}${pad('combined', 15)}target (combined)`,
    `${pad('', 28)}${'recall  FPR    '.repeat(3)}`,
  );
  for (const name of Object.keys(SCREENS)) {
    const t = COMBINED_HOLDOUT_TARGETS[name];
    if (!(name in SEMANTIC_SCREENS)) {
      const h = screenMetrics(
        corpus(name).filter((i) => i.split === 'holdout'),
        SCREENS[name],
      );
      lines.push(`${pad(name, 21)}${pad(`${h.positives}+${h.negatives}`, 7)}${figures(h)}(no semantic side)`);
      continue;
    }
    if (!model) {
      lines.push(`${pad(name, 21)}semantic screens unavailable (the sentence model is not ready)`);
      checks.push([`${name} combined screens on holdout: the sentence model is not ready`, false]);
      continue;
    }
    const m = holdoutMetrics(await holdoutVerdicts(name, model));
    const target = `recall >= ${t.recall}, FPR <= ${t.falsePositiveRate}`;
    const items = `${m.combined.positives}+${m.combined.negatives}`;
    lines.push(
      `${pad(name, 21)}${pad(items, 7)}${figures(m.regex)}${figures(m.semantic)}${figures(m.combined)}${target}`,
    );
    checks.push([
      `${name} combined screens recall ${m.combined.recall.toFixed(3)}, FPR ` +
        `${m.combined.falsePositiveRate.toFixed(3)} on holdout (${target})`,
      m.combined.recall >= t.recall && m.combined.falsePositiveRate <= t.falsePositiveRate,
    ]);
  }
  return { lines, checks };
}
