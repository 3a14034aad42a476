// Runs the Universal Sentence Encoder graph as a plan compiled once per model (graph-plan.ts). The
// graph holds two dynamic ops (`Where`) that tfjs runs only asynchronously. Both only say which
// tokens the graph keeps (the first 128 of each text) and at which (text, position) they sit, which
// the token lists already tell, so their results are fed in and the rest of the graph runs
// unchanged: the vectors of the package's own embed, bit for bit (tested).
import tf from '@energetic-ai/core';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { type Feed, type GraphExecutor, GraphPlan, type Tensor } from './graph-plan.js';
import { MAX_TOKENS, modelWindow } from './model-window.js';
import { WORD_START } from './vocabulary.js';

const SCOPE = 'module_apply_default/Encoder_en/KonaTransformer/';
/** Indices, into the flat token list, of the tokens inside the window (ClipToMaxLength's Where). */
const KEPT_TOKENS = `${SCOPE}ClipToMaxLength/Reshape`;
/** (text, position) of every kept token, in order (the FFN's StoreMask Where, as int32). */
const KEPT_CELLS = `${SCOPE}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`;
/** The position column of the same, read by the timing signal. */
const KEPT_POSITIONS = `${SCOPE}Encode/TransformerStack/Layer_0/AddTimingSignal/strided_slice_2`;
const OUTPUT = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';
const DIM = 512;

/** The slice of tfjs used here: the package's type declarations re-export modules it does not install. */
interface Tfjs {
  tensor(values: Int32Array, shape: number[], dtype: 'int32'): Tensor;
}
/** The feeds, in the order encodeSentences builds them. */
const FEEDS = ['indices', 'values', KEPT_TOKENS, KEPT_CELLS, KEPT_POSITIONS];

const plans = new WeakMap<EmbeddingsModel, GraphPlan>();
function planOf(model: EmbeddingsModel): GraphPlan {
  let plan = plans.get(model);
  if (!plan) {
    const executor = (model.model as unknown as { executor: GraphExecutor }).executor;
    plan = new GraphPlan(executor, FEEDS, OUTPUT);
    plans.set(model, plan);
  }
  return plan;
}

interface SyncGraph {
  execute(inputs: Record<string, Tensor>, outputs: string): Tensor;
}

/** Who runs the graph: the compiled plan, or tfjs's synchronous executor (the reference for tests and benches). */
export type GraphRunner = 'plan' | 'tfjs';

/** The piece of a character outside the vocabulary; a piece starting with WORD_START starts a word. */
const UNKNOWN_PIECE = 0;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The pieces of `text` the graph reads: those of its model window (modelWindow), the first MAX_TOKENS (all it keeps). */
export const sentencePieces = (model: EmbeddingsModel, text: string): number[] =>
  model.tokenizer.encode(modelWindow(text)).slice(0, MAX_TOKENS);

/**
 * Whether the model reads a word in `pieces` (sentencePieces): one whose pieces are all in its vocabulary, one of them
 * with a letter or digit. Texts of emoji, NUL or a script outside the vocabulary (CJK, most Cyrillic words) are read
 * as unknown pieces, so they get about one vector, as near some skills as any; punctuation alone asks for nothing.
 */
export function readsSomething(model: EmbeddingsModel, pieces: readonly number[]): boolean {
  const vocabulary = (model.tokenizer as unknown as { vocabulary: ReadonlyArray<[string, number]> }).vocabulary;
  let whole = false;
  let worded = false;
  for (const id of pieces) {
    const piece = vocabulary[id]?.[0] ?? '';
    if (piece.startsWith(WORD_START)) {
      if (whole && worded) return true;
      whole = true;
      worded = false;
    }
    if (id === UNKNOWN_PIECE) whole = false;
    else worded ||= LETTER_OR_DIGIT.test(piece);
  }
  return whole && worded;
}

/** One unit vector (512 floats) per text. Throws on a text with no token (only the empty string has none). */
export const encodeSentences = (
  model: EmbeddingsModel,
  texts: string[],
  runner: GraphRunner = 'plan',
): Float32Array[] =>
  encodePieces(
    model,
    texts.map((text) => sentencePieces(model, text)),
    runner,
  );

/** encodeSentences of texts already split into their pieces (sentencePieces). */
export function encodePieces(
  model: EmbeddingsModel,
  encodings: ReadonlyArray<readonly number[]>,
  runner: GraphRunner = 'plan',
): Float32Array[] {
  if (encodings.length === 0) return [];
  const total = encodings.reduce((n, e) => n + e.length, 0);
  const indices = new Int32Array(total * 2);
  const values = new Int32Array(total);
  const keptTokens = new Int32Array(total);
  const keptPositions = new Int32Array(total);
  let t = 0;
  encodings.forEach((tokens, row) => {
    if (tokens.length === 0) throw new Error(`text ${row} has nothing to embed`);
    tokens.forEach((token, position) => {
      indices[t * 2] = row;
      indices[t * 2 + 1] = position;
      values[t] = token;
      keptTokens[t] = t;
      keptPositions[t] = position;
      t++;
    });
  });
  const feeds: Feed[] = [
    { shape: [total, 2], data: indices },
    { shape: [total], data: values },
    { shape: [total], data: keptTokens },
    { shape: [total, 2], data: indices },
    { shape: [total], data: keptPositions },
  ];
  // The graph pads every text to the longest; padded positions are masked in attention and dropped before the
  // feed-forward layers, so the projections before them need only the texts' own tokens.
  const length = Math.max(...encodings.map((e) => e.length));
  const kept = new Int32Array(total);
  t = 0;
  encodings.forEach((tokens, row) => {
    for (let position = 0; position < tokens.length; position++) kept[t++] = row * length + position;
  });
  const output =
    runner === 'plan'
      ? planOf(model).execute(feeds, { batch: encodings.length, length, kept })
      : referenceRun(model, feeds);
  try {
    const flat = output.dataSync() as Float32Array;
    return encodings.map((_, i) => flat.slice(i * DIM, (i + 1) * DIM));
  } finally {
    output.dispose();
  }
}

/** The graph run by tfjs's synchronous executor on the same feeds. */
function referenceRun(model: EmbeddingsModel, feeds: Feed[]): Tensor {
  const inputs = Object.fromEntries(
    FEEDS.map((name, i) => [name, (tf as unknown as Tfjs).tensor(feeds[i]!.data, feeds[i]!.shape, 'int32')]),
  );
  try {
    return (model.model as unknown as SyncGraph).execute(inputs, OUTPUT);
  } finally {
    for (const tensor of Object.values(inputs)) tensor.dispose();
  }
}
