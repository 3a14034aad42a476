import { z } from '../zod.js';
import { LIMITS } from '../limits.js';
import { DateTime, ERROR_CODES, ExtractionSourceType } from './common.js';
import { LearningFull } from './learning.js';

const count = z.number().int().min(0);
const X = LIMITS.extraction;

/** ExtractionRequest config form; every field optional with the spec's default. */
export const ExtractionConfig = z
  .object({
    chunk_size: z.number().int().min(1).default(X.chunkSize),
    chunk_overlap: z.number().int().min(0).default(X.chunkOverlap),
    quality_threshold: z.number().int().min(0).max(20).default(X.qualityThreshold),
    quality_min_dimension: z.number().int().min(0).max(5).default(X.qualityMinDimension),
    max_learnings: z.number().int().min(0).default(X.maxLearnings),
  })
  .openapi('ExtractionConfig');
export type ExtractionConfig = z.infer<typeof ExtractionConfig>;

/** ExtractionRequest (config form), as the client-side pipeline takes it. */
export const ExtractionRequest = z
  .object({
    transcript: z.string().min(X.transcriptMinChars).max(X.transcriptMaxChars),
    config: ExtractionConfig.optional(),
  })
  .openapi('ExtractionRequest');
export type ExtractionRequest = z.infer<typeof ExtractionRequest>;

export const ExtractionStats = z
  .object({
    transcript_length: count,
    chunks_processed: count,
    chunks_failed: count,
    raw_candidates: count,
    passed_quality_gate: count,
    passed_sensitivity: count,
    passed_dedup: count,
    final_count: count,
    processing_time_ms: count,
  })
  .openapi('ExtractionStats');
export type ExtractionStats = z.infer<typeof ExtractionStats>;

export const ExtractionError = z
  .object({
    stage: z.string().describe('pipeline stage, e.g. input, model, validate, sensitivity'),
    chunk: z.number().int().describe('chunk index; -1 when the error is not tied to one chunk'),
    message: z.string(),
  })
  .openapi('ExtractionError');
export type ExtractionError = z.infer<typeof ExtractionError>;

export const ExtractionResult = z
  .object({
    success: z.boolean(),
    learnings: z.array(LearningFull),
    stats: ExtractionStats,
    errors: z.array(ExtractionError),
  })
  .openapi('ExtractionResult');
export type ExtractionResult = z.infer<typeof ExtractionResult>;

/** Sent with POST /extract: what the contributor's scrubber found before anything left the machine. */
export const ClientScrubReport = z
  .object({
    scrubber_version: z.string(),
    patterns_matched: z.array(z.string()),
    clean: z.boolean(),
  })
  .openapi('ClientScrubReport');

/** POST /extract request (the endpoint is disabled: it answers 410 whatever the body). */
export const ExtractRequest = z
  .object({
    source: z.object({ type: ExtractionSourceType, session_id: z.string() }),
    transcript: z.string().describe(`at most ${X.routeMaxBytes} bytes`),
    transcript_sha256: z.string(),
    client_scrub_report: ClientScrubReport.optional(),
  })
  .openapi('ExtractRequest');
export type ExtractRequest = z.infer<typeof ExtractRequest>;

/** POST /extract 410: extraction runs on the contributor's machine. */
export const ExtractGone = z
  .object({
    error: z.string(),
    code: z.literal(ERROR_CODES.EXTRACTION_CLIENT_SIDE),
    message: z.string(),
    request_id: z.string(),
  })
  .openapi('ExtractGone');
export type ExtractGone = z.infer<typeof ExtractGone>;

/** SPEC: OpenClawConfig with its defaults. */
export const OpenClawConfig = z
  .object({
    glob_pattern: z.string().min(1).max(200).default('**/*.md'),
    max_depth: z.number().int().min(0).default(2),
    max_file_size: z.number().int().min(0).default(1_000_000),
    max_files_per_run: z.number().int().min(1).default(20),
    min_file_size: z.number().int().min(0).default(50),
    delay_between_files_ms: z.number().int().min(0).default(2000),
    auto_publish: z.boolean().default(true),
  })
  .openapi('OpenClawConfig');
export type OpenClawConfig = z.infer<typeof OpenClawConfig>;

/** POST /openclaw/config body: any subset of the allowed fields; anything else is refused. */
export const OpenClawConfigPatch = z
  .strictObject({
    glob_pattern: z.string().min(1).max(200).optional(),
    max_depth: z.number().int().min(0).optional(),
    max_file_size: z.number().int().min(0).optional(),
    max_files_per_run: z.number().int().min(1).optional(),
    min_file_size: z.number().int().min(0).optional(),
    delay_between_files_ms: z.number().int().min(0).optional(),
    auto_publish: z.boolean().optional(),
  })
  .openapi('OpenClawConfigPatch');
export type OpenClawConfigPatch = z.infer<typeof OpenClawConfigPatch>;

export const OpenClawConfigResponse = z.object({ config: OpenClawConfig }).openapi('OpenClawConfigResponse');

export const OpenClawStatus = z
  .object({
    daemon_running: z.boolean(),
    last_run: DateTime.nullable(),
    last_result: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('summary of the last run: files seen, processed, learnings, skips, errors'),
    interval_ms: count,
    memory_path: z.string(),
    config: OpenClawConfig,
  })
  .openapi('OpenClawStatus');
export type OpenClawStatus = z.infer<typeof OpenClawStatus>;

export const OpenClawTriggerResponse = z
  .object({ triggered: z.boolean(), message: z.string() })
  .openapi('OpenClawTriggerResponse');

export const OpenClawStateEntry = z
  .object({ file: z.string(), hash: z.string(), ts: DateTime, learnings: count })
  .openapi('OpenClawStateEntry');

export const OpenClawStateResponse = z
  .object({ entries: z.array(OpenClawStateEntry), count })
  .openapi('OpenClawStateResponse');
export type OpenClawStateResponse = z.infer<typeof OpenClawStateResponse>;
