// The semantic side of the learning screens: embeds a learning's chunks with the skills' sentence model and
// asks the pure rule in domain/screens/semantic.ts whether they lie nearer the held exemplars than the clean
// ones. When the model is off, not ready or failing, the regex screens run alone (and the log says so); when the
// embedding queue is past its bound they do too, for that submission.
import { type LearningText, type ScreenFlag, screenedTexts } from '../domain/screens/index.js';
import {
  SEMANTIC_SCREENS,
  type SemanticModel,
  type SemanticScreenName,
  type SemanticVerdict,
  semanticVerdict,
  textChunks,
} from '../domain/screens/semantic.js';
import type { Logger } from '../logger.js';
import { EmbedderBusy } from '../search/embedder.js';
import { readScreenExemplars } from '../search/screen-exemplars.js';

export type Embed = (texts: string[]) => Promise<Float32Array[]>;

/** What the screens read: the chunk screens cut `chunked` into chunks; the whole-text ones read `whole`. */
export interface ScreenTexts {
  chunked: string;
  whole: string;
}

/** Every semantic screen's verdict, from one model call of at most 1 + MAX_CHUNKS texts. */
export async function semanticVerdicts(
  embed: Embed,
  model: SemanticModel,
  texts: ScreenTexts,
): Promise<Record<SemanticScreenName, SemanticVerdict>> {
  const chunks = textChunks(texts.chunked);
  const distinct = [...new Set([texts.whole, ...chunks])];
  const vectors = await embed(distinct);
  const vectorOf = new Map(distinct.map((t, i) => [t, vectors[i]!]));
  const screenVectors = { whole: vectorOf.get(texts.whole)!, chunks: chunks.map((c) => vectorOf.get(c)!) };
  const out = {} as Record<SemanticScreenName, SemanticVerdict>;
  for (const name of Object.keys(SEMANTIC_SCREENS) as SemanticScreenName[])
    out[name] = semanticVerdict(name, screenVectors, model[name]);
  return out;
}

export interface SemanticScreens {
  /** The semantic screens' flags over a learning; undefined when they cannot run (the regex screens decide alone). */
  screen(learning: LearningText): Promise<ScreenFlag[] | undefined>;
}

/** The sentence model as the screens use it: `embedQueued` waits with searches and may refuse (EmbedderBusy). */
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
  const regexOnly = (reason: string, err?: string): undefined => {
    if (fallback !== reason)
      logger.warn({ reason, ...(err && { err }) }, 'semantic screens unavailable; regex screens only');
    else logger.debug({ reason }, 'semantic screens unavailable; regex screens only');
    fallback = reason;
    return undefined;
  };
  if (!model)
    logger.info('semantic screens off (AXLE_SEMANTIC_SEARCH=off); learnings are screened by the regex screens only');

  return {
    async screen(learning) {
      if (!model) return undefined;
      if (!loaded) return regexOnly('no exemplars', loadError);
      if (model.state() !== 'ready') return regexOnly(`sentence model ${model.state()}`);
      const { all, advice } = screenedTexts(learning);
      let verdicts: Record<SemanticScreenName, SemanticVerdict>;
      try {
        verdicts = await semanticVerdicts((texts) => model.embedQueued(texts), loaded, { chunked: all, whole: advice });
      } catch (err) {
        // Shedding load, as a search does when the queue is deep: this submission is screened by the regex side.
        if (err instanceof EmbedderBusy) {
          logger.debug({ err: err.message }, 'semantic screens shed under load; regex screens only');
          return undefined;
        }
        return regexOnly('embedding failed', (err as Error).message);
      }
      if (fallback !== undefined) logger.info('semantic screens running again');
      fallback = undefined;
      return (Object.keys(SEMANTIC_SCREENS) as SemanticScreenName[])
        .filter((name) => verdicts[name].flagged)
        .map((name) => SEMANTIC_SCREENS[name]);
    },
  };
}
