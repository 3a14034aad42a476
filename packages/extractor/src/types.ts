import { LEARNING_CATEGORIES, OUTCOMES } from '@axle/sdk';
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

/** SPEC: ExtractionRequest config form. */
export interface ExtractionConfig {
  chunk_size: number;
  chunk_overlap: number;
  quality_threshold: number;
  quality_min_dimension: number;
  max_learnings: number;
}

export const DEFAULT_EXTRACTION_CONFIG: Readonly<ExtractionConfig> = Object.freeze({
  chunk_size: 4000,
  chunk_overlap: 200,
  quality_threshold: 14,
  quality_min_dimension: 3,
  max_learnings: 20,
});

/** SPEC: config-form transcript bounds, in characters. */
export const TRANSCRIPT_MIN_CHARS = 100;
export const TRANSCRIPT_MAX_CHARS = 500_000;

export interface ExtractionStats {
  transcript_length: number;
  chunks_processed: number;
  chunks_failed: number;
  raw_candidates: number;
  passed_quality_gate: number;
  passed_sensitivity: number;
  passed_dedup: number;
  final_count: number;
  processing_time_ms: number;
}

export interface ExtractionError {
  stage: string;
  /** Index of the chunk the error belongs to; -1 for errors not tied to one chunk. */
  chunk: number;
  message: string;
}

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
export const CONTRIBUTOR_AGENT = 'svc-autonomous-extractor/0.1.0';
