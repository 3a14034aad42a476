// The catalog screen's semantic layer: a sentence of a synced server's text that addresses the agent (names it,
// the user as a third party, its answers, other tools, or keeping something quiet) is scored by a linear
// classifier over the sentence model's vector, trained on the tool-poisoning fixture's dev rounds against the
// bundled catalog and the fixture's ordinary descriptions (scripts/build-catalog-screen.ts); above the margin it
// holds the version. Sentences without such a cue are not embedded: ordinary descriptions say what a tool does,
// and the cue keeps near-misses ("manage API keys", "Always use parameterised queries") away from the model.
// Vectors in, verdict out; the embedding happens in services/catalog-screen.ts.
import { foldText } from '@axle/scrub';
import { textChunks } from './semantic.js';

/** The rule name a semantic hold is stored under. */
export const SEMANTIC_RULE = 'semantic_agent_directive';

/** Who a poisoned description talks to, or about. */
const AGENT = String.raw`(?:assistants?|models?|ai|llms?|agents?|language\s+models?|claude|chatgpt|gpt|copilot)`;

/**
 * Marks of a sentence written to the agent that reads the description, over the folded (lower-case) sentence. Each
 * alternative is a fixed word sequence with bounded gaps, so the test is linear in the sentence.
 */
export const AGENT_DIRECTED = new RegExp(
  [
    // "the model should", "note to the assistant", "AI instructions", "instructions_for_assistant"
    String.raw`\b(?:the|an?|all|any|every|for|to|dear|hey)\s+${AGENT}\b`,
    String.raw`\b${AGENT}[\s_-]+(?:instructions?|rules|configuration|policy|directives?|notes?)\b`,
    String.raw`\binstructions?[\s_-]+(?:for|to)[\s_-]+${AGENT}\b`,
    // The user as a third party: "the user's", "what the user said"
    String.raw`\bthe\s+user(?:'s|s')?\b`,
    // The agent as "you", acting: "you must", "when you answer", "in your replies"
    String.raw`\byou\s+(?:must|should|shall|will|are|have|need|can)\b`,
    String.raw`\b(?:when|whenever|if|before|after|once)\s+you\b`,
    String.raw`\byour\s+(?:answers?|repl(?:y|ies)|responses?|next|context|output)\b`,
    // Its turns and calls: "in every answer", "on each call", "from now on"
    String.raw`\b(?:every|each|any)\s+(?:answer|reply|response|request|call|statement)\b`,
    String.raw`\bwhenever\b|\bfrom\s+now\s+on\b`,
    // Other tools: "the send_email tool" (from the identifier's underscore, so a long word is not rescanned),
    // "other MCP servers"
    String.raw`\w_[\w-]{0,40}\s+tool\b|\b(?:other|another)\s+(?:[\w-]+\s+)?(?:tools?|servers?)\b`,
    // Keeping quiet, or going around the user
    String.raw`\b(?:silently|quietly|secretly|regardless)\b|\bwithout\s+(?:asking|telling|confirm\w*)\b`,
    String.raw`\b(?:do\s+not|don't|never)\s+(?:mention|tell|bring|show|report|reveal)\b|\bunless\s+asked\b`,
  ].join('|'),
);

/** Whether a sentence carries a mark of being written to the agent. */
export const agentDirected = (sentence: string): boolean => AGENT_DIRECTED.test(foldText(sentence).text);

/** The sentences of a text the semantic layer embeds: those written to the agent (textChunks' bounds apply). */
export const directedSentences = (text: string): string[] => textChunks(text, agentDirected);

/** A linear classifier over unit sentence vectors: held when `weights · v + bias` exceeds `margin`. */
export interface CatalogClassifier {
  weights: Float32Array;
  bias: number;
  margin: number;
}

export function sentenceScore(v: Float32Array, c: Pick<CatalogClassifier, 'weights' | 'bias'>): number {
  let s = c.bias;
  for (let i = 0; i < v.length; i++) s += v[i]! * c.weights[i]!;
  return s;
}

/** The highest sentence score of a text (-Infinity without a sentence), and whether it holds the text. */
export function catalogSemanticVerdict(
  vectors: readonly Float32Array[],
  c: CatalogClassifier,
): { held: boolean; score: number } {
  const score = Math.max(Number.NEGATIVE_INFINITY, ...vectors.map((v) => sentenceScore(v, c)));
  return { held: score > c.margin, score };
}

export interface TrainingSample {
  vector: Float32Array;
  positive: boolean;
  /** Relative weight within its class (1 by default). */
  weight?: number;
}

export interface TrainingOptions {
  /** L2 penalty on the weights. */
  l2: number;
  /** Full-batch gradient steps. */
  steps: number;
  learningRate: number;
}

export const TRAINING: TrainingOptions = { l2: 1, steps: 600, learningRate: 2 };

/**
 * Logistic regression by full-batch gradient descent, each class carrying half the loss (positives are few),
 * deterministic. The margin is left at 0 for the caller to choose.
 */
export function trainClassifier(
  samples: readonly TrainingSample[],
  opts: TrainingOptions = TRAINING,
): CatalogClassifier {
  const dim = samples[0]?.vector.length ?? 0;
  const classWeight = (positive: boolean) => {
    const total = samples.filter((s) => s.positive === positive).reduce((a, s) => a + (s.weight ?? 1), 0);
    return total > 0 ? 0.5 / total : 0;
  };
  const wPos = classWeight(true);
  const wNeg = classWeight(false);
  const weights = new Float32Array(dim);
  const grad = new Float64Array(dim);
  let bias = 0;
  for (let step = 0; step < opts.steps; step++) {
    grad.fill(0);
    let gBias = 0;
    for (const s of samples) {
      const p = 1 / (1 + Math.exp(-sentenceScore(s.vector, { weights, bias })));
      const g = (p - (s.positive ? 1 : 0)) * (s.weight ?? 1) * (s.positive ? wPos : wNeg);
      gBias += g;
      for (let i = 0; i < dim; i++) grad[i]! += g * s.vector[i]!;
    }
    for (let i = 0; i < dim; i++)
      weights[i] = weights[i]! - opts.learningRate * (grad[i]! + (opts.l2 * weights[i]!) / samples.length);
    bias -= opts.learningRate * gBias;
  }
  return { weights, bias, margin: 0 };
}
