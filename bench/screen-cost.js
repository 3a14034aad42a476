// CPU of screening a 4 KB learning, as POST /learn screens it: the regex screens alone (every injection layer,
// sensitivity, process advice, the scrubber's thorough tier) against the whole screen (the same plus the sentence
// model's part: one model call over what the layers need, services/semantic-screens.ts), the model in an embedding
// worker of this process. The target is on a technical learning (answers to Python errors, with a request on the
// task and one off it); a 4 KB prose story about people, where every sentence is a sensitivity candidate, is
// measured too as the costly case. CPU is the process's (process.cpuUsage: every thread, the worker's included),
// p50 and p90 over RUNS screenings after WARMUP, the kinds interleaved so the machine's other load falls on all
// alike. `node bench/screen-cost.js [runs]`.
import fs from 'node:fs';
import { LEARNING_MAX } from '../packages/sdk/dist/index.js';
import { screenLearning, screenedTexts } from '../packages/server/dist/domain/screens/index.js';
import { EmbedderClient } from '../packages/server/dist/search/embedder.js';
import { readScreenExemplars } from '../packages/server/dist/search/screen-exemplars.js';
import { semanticVerdicts } from '../packages/server/dist/services/semantic-screens.js';
import { injectionSet } from './lib/injection-set.js';

export const SCREEN_TARGET_MS = 50;
/** Most CPU a hostile repetition may cost over ordinary prose of the same (largest accepted) size. */
export const HOSTILE_RATIO_MAX = 20;
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

/** A 4 KB post-mortem told about people: every sentence names one, so each is embedded for the sensitivity screen. */
function prose4k() {
  const sentences = [
    'Our on-call engineer Priya paged the team lead at two in the morning.',
    'She had been awake for most of the night with her daughter, who was ill.',
    'The customer who reported the outage called our support staff three times.',
    'His manager asked the contractor to stay late and help the new hire.',
    'We thanked the colleagues who covered for them the next day.',
    'Their families were told the shift would end early.',
  ];
  let body = '';
  for (let i = 0; body.length < SIZE; i++) body += `${sentences[i % sentences.length]} `;
  return {
    title: 'Post-mortem: the night the queue stalled',
    task_context: 'Writing up the incident',
    body: body.slice(0, SIZE),
    tags: [],
  };
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
  // The whole screen as POST /learn runs it: the model's part, then every screen with its off-task flags.
  const whole = (l) => async () => {
    const { all, advice, task } = screenedTexts(l);
    const v = await semanticVerdicts((t) => embedder.embed(t), exemplars, { chunked: all, whole: advice, task });
    return screenLearning(l, { offTask: v.offTask });
  };
  const technical = learning4k();
  const prose = prose4k();
  const kinds = { regex: () => screenLearning(technical), whole: whole(technical), prose: whole(prose) };
  const times = { regex: [], whole: [], prose: [] };
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
  const chars = (l) => `${l.title}${l.task_context}${l.body}`.length;
  return {
    chars: chars(technical),
    proseChars: chars(prose),
    regex: figures(times.regex),
    whole: figures(times.whole),
    prose: figures(times.prose),
  };
}

/** The largest learning POST /learn accepts, filled with one repeated pattern. */
const largest = (unit) => ({
  title: unit.repeat(200).slice(0, LEARNING_MAX.title),
  body: unit.repeat(LEARNING_MAX.body).slice(0, LEARNING_MAX.body),
  task_context: unit.repeat(LEARNING_MAX.taskContext).slice(0, LEARNING_MAX.taskContext),
  tags: ['x'],
});

const HOSTILE = JSON.parse(
  fs.readFileSync(new URL('../packages/server/test/fixtures/hostile-units.json', import.meta.url), 'utf8'),
).units;

/**
 * The regex screens on the largest learning made of one hostile repetition, against ordinary prose of the same size:
 * the least CPU of three screenings each, and the worst ratio (a backtracking pattern shows as a large one).
 */
export async function measureHostileScreens() {
  const least = async (l) => {
    let ms = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) ms = Math.min(ms, await cpuMs(() => screenLearning(l)));
    return ms;
  };
  const prose = await least(
    largest('When the consumer group rebalances, offsets commit late and the batch is replayed. '),
  );
  let worst = { unit: '', ms: 0 };
  for (const unit of HOSTILE) {
    const ms = await least(largest(unit));
    if (ms > worst.ms) worst = { unit, ms };
  }
  return { proseMs: prose, worst, ratio: worst.ms / Math.max(prose, 1) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measureScreenCost();
  const f = (x) => `p50 ${x.p50.toFixed(1)} ms, p90 ${x.p90.toFixed(1)} ms`;
  console.log(`screening a ${r.chars}-character learning, CPU over ${RUNS} runs each:`);
  console.log(`  regex screens alone: ${f(r.regex)}`);
  console.log(
    `  whole screen (with the sentence model): ${f(r.whole)}; ${(r.whole.p50 / r.regex.p50).toFixed(1)}x regex`,
  );
  console.log(`  whole screen of a ${r.proseChars}-character prose story about people: ${f(r.prose)}`);
  const ok = r.whole.p50 <= SCREEN_TARGET_MS;
  console.log(
    `${ok ? 'PASS' : 'FAIL'}  whole screen p50 ${r.whole.p50.toFixed(1)} ms CPU (target <= ${SCREEN_TARGET_MS} ms)`,
  );
  const h = await measureHostileScreens();
  const hostileOk = h.ratio <= HOSTILE_RATIO_MAX;
  console.log(
    `${hostileOk ? 'PASS' : 'FAIL'}  largest hostile learning (${JSON.stringify(h.worst.unit)} repeated) ${h.worst.ms.toFixed(0)} ms, ` +
      `${h.ratio.toFixed(1)}x prose of the same size (<= ${HOSTILE_RATIO_MAX}x)`,
  );
  process.exitCode = ok && hostileOk ? 0 : 1;
}
