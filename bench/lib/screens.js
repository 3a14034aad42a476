// Recall and false-positive rate of each learning screen on its labelled corpus (packages/server/test/corpora).
import fs from 'node:fs';
import { SCREENS, SCREEN_TARGETS, screenMetrics } from '../../packages/server/dist/domain/screens/index.js';

const corpus = (name) =>
  JSON.parse(
    fs.readFileSync(new URL(`../../packages/server/test/corpora/screens/${name}.json`, import.meta.url), 'utf8'),
  ).items;

/** Printable lines and PASS/FAIL checks for every screen. */
export function screenReport() {
  const lines = [
    'Learning screens on their labelled corpora (positives+negatives; holdout: items written after the patterns',
    'were last changed, never used to tune them)',
    '',
  ];
  const pad = (s, n) => String(s).padEnd(n);
  lines.push(
    `${pad('screen', 21)}${pad('items', 7)}${pad('recall', 8)}${pad('FPR', 7)}${pad('holdout', 9)}` +
      `${pad('recall', 8)}${pad('FPR', 7)}target (tuned items)`,
  );
  const checks = [];
  for (const [name, screen] of Object.entries(SCREENS)) {
    const all = corpus(name);
    const m = screenMetrics(
      all.filter((i) => !i.holdout),
      screen,
    );
    const h = screenMetrics(
      all.filter((i) => i.holdout),
      screen,
    );
    const t = SCREEN_TARGETS[name];
    const items = `${m.positives}+${m.negatives}`;
    const target = `recall >= ${t.recall}, FPR <= ${t.falsePositiveRate}`;
    const figures = (r) => `${pad(r.recall.toFixed(3), 8)}${pad(r.falsePositiveRate.toFixed(3), 7)}`;
    const held = `${h.positives}+${h.negatives}`;
    lines.push(`${pad(name, 21)}${pad(items, 7)}${figures(m)}${pad(held, 9)}${figures(h)}${target}`);
    checks.push([
      `${name} screen recall ${m.recall.toFixed(3)}, FPR ${m.falsePositiveRate.toFixed(3)} on tuned items (${target})`,
      m.recall >= t.recall && m.falsePositiveRate <= t.falsePositiveRate,
    ]);
  }
  return { lines, checks };
}
