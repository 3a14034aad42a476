// Recall and false-positive rate of each learning screen on its labelled corpus (packages/server/test/corpora).
import fs from 'node:fs';
import { SCREENS, SCREEN_TARGETS, screenMetrics } from '../../packages/server/dist/domain/screens/index.js';

const corpus = (name) =>
  JSON.parse(
    fs.readFileSync(new URL(`../../packages/server/test/corpora/screens/${name}.json`, import.meta.url), 'utf8'),
  ).items;

/** Printable lines and PASS/FAIL checks for every screen. */
export function screenReport() {
  const lines = ['Learning screens on their labelled corpora', ''];
  const pad = (s, n) => String(s).padEnd(n);
  lines.push(`${pad('screen', 21)}${pad('items', 7)}${pad('recall', 8)}${pad('FPR', 7)}target`);
  const checks = [];
  for (const [name, screen] of Object.entries(SCREENS)) {
    const m = screenMetrics(corpus(name), screen);
    const t = SCREEN_TARGETS[name];
    const items = `${m.positives}+${m.negatives}`;
    const target = `recall >= ${t.recall}, FPR <= ${t.falsePositiveRate}`;
    const figures = `${pad(m.recall.toFixed(3), 8)}${pad(m.falsePositiveRate.toFixed(3), 7)}`;
    lines.push(`${pad(name, 21)}${pad(items, 7)}${figures}${target}`);
    checks.push([
      `${name} screen recall ${m.recall.toFixed(3)}, FPR ${m.falsePositiveRate.toFixed(3)} (${target})`,
      m.recall >= t.recall && m.falsePositiveRate <= t.falsePositiveRate,
    ]);
  }
  return { lines, checks };
}
