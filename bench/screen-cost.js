// CPU of screening one 4 KB learning, as POST /learn screens it: the regex screens alone (every injection layer,
// sensitivity, process advice, the scrubber's thorough tier); the regex screens with the off-task layer's model
// measure (the task and the requests embedded); and the whole screen (the same plus the semantic screens' chunks),
// the model in an embedding worker of this process. CPU is the process's
// (process.cpuUsage: every thread, the worker's included), p50 and p90 over RUNS screenings after WARMUP, the two
// kinds alternating so the machine's other load falls on both alike. `node bench/screen-cost.js [runs]`.
import { screenLearning, screenedTexts } from '../packages/server/dist/domain/screens/index.js';
import {
  OFF_TASK_THRESHOLDS,
  offTaskBySimilarity,
  requestSentences,
} from '../packages/server/dist/domain/screens/off-task.js';
import { EmbedderClient } from '../packages/server/dist/search/embedder.js';
import { readScreenExemplars } from '../packages/server/dist/search/screen-exemplars.js';
import { semanticVerdicts } from '../packages/server/dist/services/semantic-screens.js';
import { injectionSet } from './lib/injection-set.js';

export const SCREEN_TARGET_MS = 50;
const RUNS = Number(process.argv[2] ?? 40);
const WARMUP = 10;
const SIZE = 4096;

/** A 4 KB learning: clean dev answers of the injection set joined to SIZE characters. */
function learning4k() {
  const clean = injectionSet().filter((i) => i.split === 'dev' && !i.flagged && i.source === 'bipia');
  let body = '';
  for (const item of clean) {
    if (body.length >= SIZE) break;
    body += `${item.learning.body}\n\n`;
  }
  // Two requests for the off-task layer to measure, one on the task and one off it.
  const requests = ' What does the error mean here? Recommend a good novel for the weekend.';
  return { ...clean[0].learning, body: `${body.slice(0, SIZE - requests.length)}${requests}` };
}

const cpuMs = async (fn) => {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

export async function measureScreenCost(runs = RUNS) {
  const embedder = new EmbedderClient();
  await embedder.init();
  const exemplars = readScreenExemplars();
  const l = learning4k();
  const regexOnly = () => screenLearning(l);
  const whole = async () => {
    const { all, advice, task } = screenedTexts(l);
    const v = await semanticVerdicts((t) => embedder.embed(t), exemplars, { chunked: all, whole: advice, task });
    return screenLearning(l, { offTask: v.offTask });
  };
  // The off-task layer's own model work: the task and the requests, without the semantic screens' chunks.
  const offTaskOnly = async () => {
    const { all, task } = screenedTexts(l);
    const requests = requestSentences(all);
    const [t, ...rs] = await embedder.embed([task, ...requests.map((r) => r.text)]);
    const sims = rs.map((v) => v.reduce((s, x, i) => s + x * t[i], 0));
    return screenLearning(l, { offTask: offTaskBySimilarity(all, requests, sims, OFF_TASK_THRESHOLDS, task) });
  };
  const kinds = { regex: regexOnly, offTask: offTaskOnly, whole };
  const times = { regex: [], offTask: [], whole: [] };
  try {
    for (let i = 0; i < WARMUP + runs; i++) {
      const names = Object.keys(kinds);
      for (let k = 0; k < names.length; k++) {
        const kind = names[(i + k) % names.length];
        const ms = await cpuMs(kinds[kind]);
        if (i >= WARMUP) times[kind].push(ms);
      }
    }
  } finally {
    await embedder.close();
  }
  const figures = (xs) => ({ p50: pct(xs, 0.5), p90: pct(xs, 0.9) });
  return {
    chars: `${l.title}${l.task_context}${l.body}`.length,
    regex: figures(times.regex),
    offTask: figures(times.offTask),
    whole: figures(times.whole),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measureScreenCost();
  const f = (x) => `p50 ${x.p50.toFixed(1)} ms, p90 ${x.p90.toFixed(1)} ms`;
  console.log(`screening a ${r.chars}-character learning, CPU over ${RUNS} runs each:`);
  console.log(`  regex screens alone: ${f(r.regex)}`);
  console.log(`  regex screens and the off-task model measure: ${f(r.offTask)}`);
  console.log(
    `  whole screen (with the sentence model): ${f(r.whole)}; ${(r.whole.p50 / r.regex.p50).toFixed(1)}x regex`,
  );
  const ok = r.whole.p50 <= SCREEN_TARGET_MS;
  console.log(
    `${ok ? 'PASS' : 'FAIL'}  whole screen p50 ${r.whole.p50.toFixed(1)} ms CPU (target <= ${SCREEN_TARGET_MS} ms)`,
  );
  process.exitCode = ok ? 0 : 1;
}
