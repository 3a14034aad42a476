// The thorough tier's figures, printed by run.js after the fast tier's: recall and precision per type on the
// presidio-synth records (dev, which the rules were written against, and test, which they were not), beside the fast
// tier's; the share of technical paragraphs (no personal data) that each tier changes; and the cost in ms per KB.
import { scrub } from '@axle/scrub';
import { overlaps, pad, ratio } from './scoring.js';
import { noPersonalDev, noPersonalTest, PRESIDIO_TYPES, presidio, presidioTest, technical } from './texts.js';

/** Presidio entity types mapped to the scrubber's finding types; the two this tier is for lead the table. */
const TYPES = { PERSON: 'person', STREET_ADDRESS: 'street_address', ...PRESIDIO_TYPES };
const TIERS = { fast: (t) => scrub(t), thorough: (t) => scrub(t, { tier: 'thorough' }) };

function score(records, run) {
  const perType = new Map(Object.values(TYPES).map((t) => [t, { gold: 0, found: 0, predicted: 0, correct: 0 }]));
  for (const rec of records) {
    const gold = rec.spans.map((s) => ({ type: TYPES[s.entity_type], start: s.start_position, end: s.end_position }));
    const { findings } = run(rec.full_text);
    for (const g of gold) {
      const t = g.type && perType.get(g.type);
      if (!t) continue;
      t.gold++;
      if (findings.some((f) => f.type === g.type && overlaps(f, g))) t.found++;
    }
    for (const f of findings) {
      const t = perType.get(f.type);
      if (!t) continue;
      t.predicted++;
      if (gold.some((g) => g.type === f.type && overlaps(f, g))) t.correct++;
    }
  }
  return perType;
}

/** Least CPU ms per KB over `rounds` passes, after one warm-up pass. */
function cost(texts, run, rounds = 5) {
  const kb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1000;
  for (const t of texts) run(t);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const cpu0 = process.cpuUsage();
    for (const t of texts) run(t);
    const cpu = process.cpuUsage(cpu0);
    best = Math.min(best, (cpu.user + cpu.system) / 1000);
  }
  return { msPerKb: best / kb, kb };
}

export function reportThorough() {
  const t0 = performance.now();
  scrub('Ana Souza', { tier: 'thorough' });
  const loadMs = performance.now() - t0;

  const col = 22;
  const sets = { 'dev (1,000)': presidio, 'test (500)': presidioTest };
  const names = Object.keys(sets).flatMap((s) => Object.keys(TIERS).map((tier) => [s, tier]));
  const scores = names.map(([s, tier]) => score(sets[s], TIERS[tier]));
  const header = (title) => console.log(`\n${pad(title, 28)}${names.map(([s, t]) => pad(`${t} ${s}`, col)).join('')}`);

  console.log('\n=== Thorough tier (scrub with {tier: "thorough"}) against the fast tier (scrub) ===');
  header('PII recall (same type)');
  const cell = (n, d) => pad(`${ratio(n, d)} (${n}/${d})`, col);
  for (const type of Object.values(TYPES)) {
    console.log(pad(`  ${type}`, 28) + scores.map((p) => cell(p.get(type).found, p.get(type).gold)).join(''));
  }
  header('PII precision (same type)');
  for (const type of ['person', 'street_address']) {
    console.log(pad(`  ${type}`, 28) + scores.map((p) => cell(p.get(type).correct, p.get(type).predicted)).join(''));
  }

  // Records with no labelled span: the thorough tier should leave them as they are (place names, products and
  // companies included).
  console.log('\nRECORDS WITHOUT PERSONAL DATA left unchanged by the thorough tier');
  for (const [name, records] of Object.entries(sets)) {
    const none = records.filter((r) => r.spans.length === 0);
    const kept = none.filter((r) => TIERS.thorough(r.full_text).text === r.full_text).length;
    console.log(`  ${pad(name, 12)} ${ratio(kept, none.length)} (${kept}/${none.length})`);
  }
  // Authored records naming places, companies, products and titles (corpora/no-personal), split by line parity.
  for (const [name, texts] of Object.entries({ 'authored dev': noPersonalDev, 'authored test': noPersonalTest })) {
    const kept = texts.filter((t) => TIERS.thorough(t).text === t).length;
    console.log(`  ${pad(name, 12)} ${ratio(kept, texts.length)} (${kept}/${texts.length})`);
  }

  console.log(`\n${pad(`TECHNICAL paragraphs changed (${technical.length}, no personal data)`, 60)}`);
  for (const [tier, run] of Object.entries(TIERS)) {
    const bySource = new Map();
    let changed = 0;
    let personal = 0;
    for (const p of technical) {
      const r = run(p.text);
      const source = p.source.split(':')[0];
      const s = bySource.get(source) ?? { n: 0, changed: 0 };
      s.n++;
      if (r.text !== p.text) {
        changed++;
        s.changed++;
      }
      if (r.findings.some((f) => f.type === 'person' || f.type === 'street_address')) personal++;
      bySource.set(source, s);
    }
    const parts = [...bySource].map(([k, s]) => `${k} ${s.changed}/${s.n}`).join(', ');
    console.log(
      `  ${pad(tier, 10)} ${ratio(changed, technical.length)} (${changed}/${technical.length}; ${parts}); ` +
        `by a person or address finding ${ratio(personal, technical.length)} (${personal})`,
    );
  }

  console.log('\nCOST, ms per KB by CPU time (least of 5 passes, warm)');
  const texts = {
    'dev records': presidio.map((r) => r.full_text),
    'technical paragraphs': technical.map((p) => p.text),
  };
  for (const [name, list] of Object.entries(texts)) {
    const fast = cost(list, TIERS.fast);
    const thorough = cost(list, TIERS.thorough);
    const figures = `fast ${fast.msPerKb.toFixed(3)}, thorough ${thorough.msPerKb.toFixed(3)}`;
    console.log(`  ${pad(name, 22)} ${figures} (${fast.kb.toFixed(0)} KB)`);
  }
  console.log(`  first thorough call (reads the word lists): ${loadMs.toFixed(0)} ms`);
}
