// Transcript readers, extraction pipeline, submission and the OpenClaw adapter.
export type { Conversation, Message, MessageKind, ReadIssue, ReadResult, Role, SourceClient } from './conversation.js';
export {
  CONTRIBUTOR_AGENT,
  DEFAULT_EXTRACTION_CONFIG,
  LEARNING_CATEGORIES,
  OUTCOMES,
  TRANSCRIPT_MAX_CHARS,
  TRANSCRIPT_MIN_CHARS,
} from './types.js';
export type {
  Clock,
  ExtractionConfig,
  ExtractionError,
  ExtractionResult,
  ExtractionStats,
  LearningCategory,
  LearningDraft,
  Outcome,
  QualityScores,
  Sleep,
} from './types.js';
export {
  ClaudeCodeParser,
  CodexRolloutParser,
  GeminiSessionParser,
  OpenClawMemoryParser,
  OpenClawSessionParser,
  PlainTextParser,
  readClaudeCode,
  readOpenClawMemory,
  readOpenClawSession,
  readPlainText,
  readTranscriptFile,
} from './readers/index.js';
export type { FileReadResult, LineParser, ReadFileOptions, TranscriptFormat } from './readers/index.js';
export { extractFile } from './extract.js';
export type { ExtractFileOptions, ExtractFileResult } from './extract.js';
export { resolveConfig, runPipeline } from './pipeline/run.js';
export type { PipelineOptions } from './pipeline/run.js';
export { applyRubric, combineScores, scoreContent } from './pipeline/rubric.js';
export { dedupe } from './pipeline/dedup.js';
export type { Model, ModelInput } from './model/model.js';
export { HeuristicModel } from './model/heuristic.js';
export { ModelError, OpenAIChatModel, parseModelReply } from './model/openai.js';
export type { OpenAIModelConfig } from './model/openai.js';
export { DraftQueue } from './submit/queue.js';
export type { QueueItem, QueueState } from './submit/queue.js';
export { Submitter, learnRequestBody } from './submit/client.js';
export type { FlushReport, SubmitterOptions } from './submit/client.js';
export { OpenClawAdapter, RunInProgressError } from './daemon/adapter.js';
export type { OpenClawAdapterOptions, OpenClawStateResponse, OpenClawStatus, RunResult } from './daemon/adapter.js';
export { ConfigError, DEFAULT_OPENCLAW_CONFIG, parseConfigPatch } from './daemon/config.js';
export type { OpenClawConfig } from './daemon/config.js';
export { captureDisabled } from './daemon/kill-switch.js';
export { StateStore, hashFile } from './daemon/state.js';
export type { StateEntry } from './daemon/state.js';
export { axleHome, claudeProjectsDir, defaultPaths } from './paths.js';
export { replaceFile } from './replace-file.js';
