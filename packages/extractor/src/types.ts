import {
  ExtractionConfig as ExtractionConfigSchema,
  type ExtractionError,
  type ExtractionStats,
  LEARNING_CATEGORIES,
  LIMITS,
  OUTCOMES,
  VERSIONS,
} from '@axle/sdk';
import type { SourceClient } from './conversation.js';

export { LEARNING_CATEGORIES, OUTCOMES };
export type LearningCategory = (typeof LEARNING_CATEGORIES)[number];
export type Outcome = (typeof OUTCOMES)[number];

/** The four rubric dimensions, each 1..5. */
export interface QualityScores {
  specificity: number;
  actionability: number;
  novelty: number;
  completeness: number;
}

/** A learning as the extractor produces it, before submission to POST /learn. */
export interface LearningDraft {
  title: string;
  body: string;
  category: LearningCategory;
  tags: string[];
  task_context: string;
  outcome: Outcome;
  quality_self_assessment: QualityScores;
}

export type { ExtractionConfig, ExtractionError, ExtractionStats } from '@axle/sdk';

/** The spec's config-form defaults, from the contract schema. */
export const DEFAULT_EXTRACTION_CONFIG = Object.freeze(ExtractionConfigSchema.parse({}));

/** SPEC: config-form transcript bounds, in characters. */
export const TRANSCRIPT_MIN_CHARS = LIMITS.extraction.transcriptMinChars;
export const TRANSCRIPT_MAX_CHARS = LIMITS.extraction.transcriptMaxChars;

/**
 * SPEC: ExtractionResult. Client-side, `learnings` are drafts: they become LearningFull records only once
 * the server accepts them through POST /learn.
 */
export interface ExtractionResult {
  success: boolean;
  learnings: LearningDraft[];
  stats: ExtractionStats;
  errors: ExtractionError[];
  source: SourceClient;
}

/** Milliseconds since the Unix epoch; injected so tests are deterministic. */
export type Clock = () => number;
export type Sleep = (ms: number) => Promise<void>;

export const systemClock: Clock = () => Date.now();
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** SPEC Versioning: contributor agent stamp for extraction. */
export const CONTRIBUTOR_AGENT = VERSIONS.extractorAgent;
