// Runs the Universal Sentence Encoder graph with tfjs's synchronous executor. The graph holds two
// dynamic ops (`Where`) that force the asynchronous one, whose per-node bookkeeping costs a few
// milliseconds a call. Both only say which tokens the graph keeps (the first 128 of each text) and at
// which (text, position) they sit, which the token lists already tell, so their results are fed in
// and the rest of the graph runs unchanged: the same vectors, bit for bit (tested).
import tf from '@energetic-ai/core';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { MAX_TOKENS, modelWindow } from './model-window.js';

const SCOPE = 'module_apply_default/Encoder_en/KonaTransformer/';
/** Indices, into the flat token list, of the tokens inside the window (ClipToMaxLength's Where). */
const KEPT_TOKENS = `${SCOPE}ClipToMaxLength/Reshape`;
/** (text, position) of every kept token, in order (the FFN's StoreMask Where, as int32). */
const KEPT_CELLS = `${SCOPE}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`;
/** The position column of the same, read by the timing signal. */
const KEPT_POSITIONS = `${SCOPE}Encode/TransformerStack/Layer_0/AddTimingSignal/strided_slice_2`;
const OUTPUT = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';
const DIM = 512;

interface Tensor {
  dispose(): void;
  dataSync(): Float32Array;
}
/** The slice of tfjs used here: the package's type declarations re-export modules it does not install. */
interface Tfjs {
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
}
interface SyncGraph {
  execute(inputs: Record<string, Tensor>, outputs: string): Tensor;
}

/** One unit vector (512 floats) per text. Throws on a text with no token (only the empty string has none). */
export function encodeSentences(model: EmbeddingsModel, texts: string[]): Float32Array[] {
  // Only the window's first MAX_TOKENS tokens reach the graph: those are all it keeps.
  const encodings = texts.map((text) => model.tokenizer.encode(modelWindow(text)).slice(0, MAX_TOKENS));
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
  const core = tf as unknown as Tfjs;
  const inputs: Record<string, Tensor> = {
    indices: core.tensor2d(indices, [total, 2], 'int32'),
    values: core.tensor1d(values, 'int32'),
    [KEPT_TOKENS]: core.tensor1d(keptTokens, 'int32'),
    [KEPT_CELLS]: core.tensor2d(indices, [total, 2], 'int32'),
    [KEPT_POSITIONS]: core.tensor1d(keptPositions, 'int32'),
  };
  let output: Tensor | undefined;
  try {
    output = (model.model as unknown as SyncGraph).execute(inputs, OUTPUT);
    const flat = output.dataSync();
    return texts.map((_, i) => flat.slice(i * DIM, (i + 1) * DIM));
  } finally {
    output?.dispose();
    for (const tensor of Object.values(inputs)) tensor.dispose();
  }
}
