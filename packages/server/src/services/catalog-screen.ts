// The catalog screen as a sync runs it: the regex screen (domain/screens/catalog-text.ts), then, for text it
// passes, the semantic layer (domain/screens/catalog-semantic.ts) over the sentences written to the agent, with the
// skills' sentence model. A text without such a sentence costs no model call. When the model is off, still
// loading, failing, or the classifier file cannot be read, the regex screen decides alone: the verdict says so
// (`semantic: false`), and the log says why once per reason.
import {
  type CatalogClassifier,
  catalogSemanticVerdict,
  directedSentences,
  SEMANTIC_RULE,
} from '../domain/screens/catalog-semantic.js';
import { type CatalogScreening, screenCatalogText } from '../domain/screens/catalog-text.js';
import type { Logger } from '../logger.js';
import { readCatalogClassifier } from '../search/catalog-classifier.js';

export interface CatalogVerdict extends CatalogScreening {
  /** Whether the semantic layer ran (or had nothing to read); false when the regex screen decided alone. */
  semantic: boolean;
}

export interface CatalogScreen {
  screen(texts: readonly string[]): Promise<CatalogVerdict>;
  /** True while the sentence model is still loading: a sync waits for it rather than screen by regex alone. */
  warming(): boolean;
  /** Settles once the sentence model has loaded or failed to (at once when there is none, or it is loaded). */
  warmed(): Promise<void>;
}

/** The sentence model as the catalog screen uses it (the skills' SemanticIndex, or an embedding worker). */
export interface CatalogScreenModel {
  state(): string;
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Settles when a model that was loading has loaded or failed (the SemanticIndex's own). */
  readonly settled?: Promise<unknown>;
}

export interface CatalogScreenDeps {
  /** Absent when the semantic layer is off (AXLE_SEMANTIC_SEARCH=off). */
  model: CatalogScreenModel | undefined;
  logger: Logger;
  /** The classifier; the bundled file by default. */
  classifier?: () => CatalogClassifier;
}

export function createCatalogScreen({
  model,
  logger,
  classifier = readCatalogClassifier,
}: CatalogScreenDeps): CatalogScreen {
  let loaded: CatalogClassifier | undefined;
  let loadError: string | undefined;
  if (model) {
    try {
      loaded = classifier();
    } catch (err) {
      loadError = (err as Error).message;
    }
  }
  let fallback: string | undefined;
  const regexOnly = (regex: CatalogScreening, reason: string, err?: string): CatalogVerdict => {
    if (fallback !== reason)
      logger.warn({ reason, ...(err && { err }) }, 'catalog screen: semantic layer unavailable; regex screen only');
    fallback = reason;
    return { ...regex, semantic: false };
  };
  return {
    warming: () => model?.state() === 'warming',
    warmed: async () => {
      await model?.settled;
    },
    async screen(texts) {
      const regex = screenCatalogText(texts);
      if (regex.held || !model) return { ...regex, semantic: model !== undefined };
      if (!loaded) return regexOnly(regex, 'no classifier', loadError);
      if (model.state() !== 'ready') return regexOnly(regex, `sentence model ${model.state()}`);
      const sentences = [...new Set(texts.flatMap(directedSentences))];
      if (sentences.length === 0) return { ...regex, semantic: true };
      let vectors: Float32Array[];
      try {
        vectors = await model.embed(sentences);
      } catch (err) {
        return regexOnly(regex, 'embedding failed', (err as Error).message);
      }
      if (fallback !== undefined) logger.info('catalog screen: semantic layer running again');
      fallback = undefined;
      const held = catalogSemanticVerdict(vectors, loaded).held;
      return { held, rules: held ? [SEMANTIC_RULE] : [], semantic: true };
    },
  };
}
