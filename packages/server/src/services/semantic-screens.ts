// The semantic side of the learning screens: one call of the skills' sentence model over only what the screens
// need (the sentences that may be sensitive, the opening of a learning without code for the advice screen, the
// off-task layer's requests that its words find apart from the learning, and the task window), then the pure rules
// in domain/screens/semantic.ts (nearer the held exemplars than the clean ones?) and off-task.ts (a request far
// from the task?). A technical learning without such a request costs no model call. When the model is off, not
// ready or failing, the regex screens run alone (and the log says so); when the embedding queue is past its bound,
// or the model does not answer within the request's deadline, they do too, for that submission, and the reason
// is recorded on it.
import type { LayerFlag } from '../domain/screens/flags.js';
import { type LearningText, type ScreenFlag, screenedTexts } from '../domain/screens/index.js';
import {
  apartByWords,
  OFF_TASK_THRESHOLD,
  offTaskBySimilarity,
  type Request,
  requestSentences,
  taskWindow,
} from '../domain/screens/off-task.js';
import {
  SEMANTIC_SCREENS,
  type SemanticModel,
  type SemanticScreenName,
  type SemanticVerdict,
  adviceWindow,
  semanticVerdict,
  sensitivityChunks,
} from '../domain/screens/semantic.js';
import type { Logger } from '../logger.js';
import { EmbedderBusy, EmbedderTimeout } from '../search/embedder.js';
import { readScreenExemplars } from '../search/screen-exemplars.js';

export type Embed = (texts: string[]) => Promise<Float32Array[]>;

/**
 * What the screens read: the chunk screens the sentences of `chunked` they need; the whole-text ones the opening
 * of `whole`; the off-task layer compares the requests in `chunked` with `task` (the learning's title and task
 * context).
 */
export interface ScreenTexts {
  chunked: string;
  whole: string;
  task?: string;
}

/** Requests the off-task layer measures at most (each is one text of its model call). */
const MAX_REQUESTS = 8;

export interface SemanticVerdicts {
  verdicts: Record<SemanticScreenName, SemanticVerdict>;
  /** The off-task layer's flags (offsets of `chunked`); empty without a `task`. */
  offTask: LayerFlag[];
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/**
 * The off-task layer's requests in `chunked` (of the first MAX_REQUESTS) that the model must measure, and the task
 * window they are measured against. A request flags only when the words also find it apart from the rest of the
 * learning (offTaskBySimilarity), so one they do not is not embedded: the flags are the same.
 */
function offTaskTexts(chunked: string, task: string | undefined): { requests: Request[]; task: string } | undefined {
  if (task === undefined || !/\S/.test(task)) return undefined;
  const requests = apartByWords(requestSentences(chunked).slice(0, MAX_REQUESTS), chunked, task);
  return requests.length === 0 ? undefined : { requests, task: taskWindow(task) };
}

/**
 * The off-task layer's flags by the sentence model: the requests of `chunked` embedded with the task window, each
 * measured by its cosine to it. No model call when no request is apart from the learning by its words.
 */
export async function offTaskFlags(embed: Embed, chunked: string, task: string): Promise<LayerFlag[]> {
  return (await semanticVerdicts(embed, undefined, { chunked, whole: '', task })).offTask;
}

/**
 * Every semantic screen's verdict and the off-task flags, from one model call over only what the screens need:
 * the sentences that may be sensitive, the advice window of a text without code, the task window and the requests
 * (no call when there is none of these). Without `model` (exemplars), only the off-task flags.
 */
export async function semanticVerdicts(
  embed: Embed,
  model: SemanticModel | undefined,
  texts: ScreenTexts,
): Promise<SemanticVerdicts> {
  const chunks = model ? sensitivityChunks(texts.chunked) : [];
  const advice = model ? adviceWindow(texts.whole) : undefined;
  const offTask = offTaskTexts(texts.chunked, texts.task);
  const wanted = [
    ...(advice === undefined ? [] : [advice]),
    ...chunks,
    ...(offTask ? [offTask.task, ...offTask.requests.map((r) => r.text)] : []),
  ];
  const distinct = [...new Set(wanted)];
  const vectors = distinct.length > 0 ? await embed(distinct) : [];
  const vectorOf = new Map(distinct.map((t, i) => [t, vectors[i]!]));
  const verdicts = {} as Record<SemanticScreenName, SemanticVerdict>;
  const screenVectors = {
    whole: advice === undefined ? undefined : vectorOf.get(advice),
    chunks: chunks.map((c) => vectorOf.get(c)!),
  };
  for (const name of Object.keys(SEMANTIC_SCREENS) as SemanticScreenName[])
    verdicts[name] = model
      ? semanticVerdict(name, screenVectors, model[name])
      : { flagged: false, score: Number.NEGATIVE_INFINITY };
  if (!offTask) return { verdicts, offTask: [] };
  const taskVector = vectorOf.get(offTask.task)!;
  const similarities = offTask.requests.map((r) => dot(taskVector, vectorOf.get(r.text)!));
  return {
    verdicts,
    offTask: offTaskBySimilarity(texts.chunked, offTask.requests, similarities, OFF_TASK_THRESHOLD, texts.task),
  };
}

/**
 * What the semantic side made of a learning: its flags and the off-task layer's (offsets of
 * `screenedTexts(learning).all`), or why it did not run (the regex screens decided alone).
 */
export type SemanticScreening = { flags: ScreenFlag[]; offTask: LayerFlag[] } | { skipped: string };

export interface SemanticScreens {
  /** The semantic screens over a learning; undefined when they are off (AXLE_SEMANTIC_SEARCH=off). */
  screen(learning: LearningText): Promise<SemanticScreening | undefined>;
}

/**
 * The sentence model as the screens use it: `embedQueued` waits with searches, may refuse (EmbedderBusy) and waits
 * at most the request's deadline (EmbedderTimeout).
 */
export interface ScreenModel {
  state(): string;
  embedQueued(texts: string[]): Promise<Float32Array[]>;
}

export interface SemanticScreensDeps {
  /** The sentence model shared with search; absent when AXLE_SEMANTIC_SEARCH is off. */
  model: ScreenModel | undefined;
  logger: Logger;
  /** Exemplars and margins; the bundled file by default. */
  exemplars?: () => SemanticModel;
}

export function createSemanticScreens({
  model,
  logger,
  exemplars = readScreenExemplars,
}: SemanticScreensDeps): SemanticScreens {
  let loaded: SemanticModel | undefined;
  let loadError: string | undefined;
  try {
    loaded = exemplars();
  } catch (err) {
    loadError = (err as Error).message;
  }
  /** Why the last screening ran on regex alone (logged when it changes, so a long outage is one line). */
  let fallback: string | undefined;
  const regexOnly = (reason: string, err?: string): SemanticScreening => {
    if (fallback !== reason)
      logger.warn({ reason, ...(err && { err }) }, 'semantic screens unavailable; regex screens only');
    else logger.debug({ reason }, 'semantic screens unavailable; regex screens only');
    fallback = reason;
    return { skipped: reason };
  };
  if (!model)
    logger.info('semantic screens off (AXLE_SEMANTIC_SEARCH=off); learnings are screened by the regex screens only');

  return {
    async screen(learning) {
      if (!model) return undefined;
      if (!loaded) return regexOnly('no exemplars', loadError);
      if (model.state() !== 'ready') return regexOnly(`sentence model ${model.state()}`);
      const { all, advice, task } = screenedTexts(learning);
      let result: SemanticVerdicts;
      try {
        result = await semanticVerdicts((texts) => model.embedQueued(texts), loaded, {
          chunked: all,
          whole: advice,
          task,
        });
      } catch (err) {
        // Shedding load, as a search does when the queue is deep or the model is slow: this submission is
        // screened by the regex side (the next one may not be, so this is not logged as an outage).
        if (err instanceof EmbedderBusy || err instanceof EmbedderTimeout) {
          logger.debug({ err: err.message }, 'semantic screens shed under load; regex screens only');
          return { skipped: err instanceof EmbedderBusy ? 'embedding queue full' : err.message };
        }
        return regexOnly('embedding failed', (err as Error).message);
      }
      if (fallback !== undefined) logger.info('semantic screens running again');
      fallback = undefined;
      return {
        flags: (Object.keys(SEMANTIC_SCREENS) as SemanticScreenName[])
          .filter((name) => result.verdicts[name].flagged)
          .map((name) => SEMANTIC_SCREENS[name]),
        offTask: result.offTask,
      };
    },
  };
}
