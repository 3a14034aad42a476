import type { Conversation, Message } from '../conversation.js';
import type { Model } from '../model/model.js';
import { type Finding, redact, type ScrubResult, scrubAsync } from '@axle/scrub';
import {
  type Clock,
  DEFAULT_EXTRACTION_CONFIG,
  type ExtractionConfig,
  type ExtractionError,
  type ExtractionResult,
  type LearningDraft,
  TRANSCRIPT_MAX_CHARS,
  TRANSCRIPT_MIN_CHARS,
  systemClock,
} from '../types.js';
import { type Chunk, chunkTranscript } from './chunk.js';
import { dedupe } from './dedup.js';
import { redactPersonal } from './personal.js';
import { type RenderedTranscript, renderConversation } from './render.js';
import { applyRubric, combineScores, scoreContent } from './rubric.js';
import { parseCandidate, refusal } from './validate.js';

export interface PipelineOptions {
  model: Model;
  config?: Partial<ExtractionConfig>;
  /** Defaults to the two-layer `scrubAsync`; injectable so tests can count or stub scrubbing. */
  scrubber?: (text: string) => Promise<ScrubResult>;
  clock?: Clock;
}

export function resolveConfig(partial: Partial<ExtractionConfig> = {}): ExtractionConfig {
  const c = { ...DEFAULT_EXTRACTION_CONFIG };
  for (const key of Object.keys(c) as Array<keyof ExtractionConfig>) {
    const v = partial[key];
    if (v !== undefined) {
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`config.${key} must be a non-negative integer`);
      c[key] = v;
    }
  }
  if (c.chunk_size < 1) throw new RangeError('config.chunk_size must be at least 1');
  if (c.chunk_overlap >= c.chunk_size) throw new RangeError('config.chunk_overlap must be smaller than chunk_size');
  return c;
}

/**
 * `chunk` with what the scrub of the whole transcript found in it redacted: a secret that runs past a chunk's edge
 * (a private key is thousands of characters) is whole only in the transcript, so a chunk's own scrub would see a
 * piece it cannot recognise.
 */
function maskWholeFindings(chunk: Chunk, whole: readonly Finding[]): string {
  const end = chunk.start + chunk.text.length;
  const inside = whole
    .filter((f) => f.start < end && f.end > chunk.start)
    .map((f) => ({ type: f.type, start: Math.max(0, f.start - chunk.start), end: Math.min(end, f.end) - chunk.start }));
  return inside.length === 0 ? chunk.text : redact(chunk.text, inside).text;
}

/**
 * The conversation with every message's text scrubbed, for extractors that read `messages` (the heuristic builds its
 * drafts from them). A message whole in the scrubbed transcript gets the findings of that scrub; one that is not (a
 * clipped tool payload, or past the transcript cut) is scrubbed on its own. Without this a draft quoting a shortened
 * command could keep a piece of a secret the draft's own scrub no longer recognises.
 */
async function scrubMessages(
  conversation: Conversation,
  rendered: RenderedTranscript,
  whole: readonly Finding[],
  scrubber: (text: string) => Promise<ScrubResult>,
): Promise<Conversation> {
  const messages: Message[] = [];
  for (const [i, m] of conversation.messages.entries()) {
    const start = rendered.bodies[i] ?? -1;
    if (start === -1 || start + m.text.length > rendered.text.length) {
      messages.push({ ...m, text: (await scrubber(m.text)).text });
      continue;
    }
    const end = start + m.text.length;
    const inside = whole
      .filter((f) => f.start < end && f.end > start)
      .map((f) => ({ type: f.type, start: Math.max(0, f.start - start), end: Math.min(end, f.end) - start }));
    messages.push(inside.length === 0 ? m : { ...m, text: redact(m.text, inside).text });
  }
  return { ...conversation, messages };
}

/** A draft's text fields as one text, as the scrubber checks them. */
export const draftText = (d: LearningDraft): string => [d.title, d.body, d.task_context, d.tags.join(' ')].join('\n');

/**
 * conversation -> scrub of the whole transcript -> chunks -> (scrub, model) -> validation -> quality gate -> sensitivity -> dedup -> cap.
 *
 * A chunk whose model call fails is recorded as an ExtractionError and the run goes on; `success` is
 * false only when the transcript is unusable or every chunk failed.
 *
 * Sensitivity policy: a draft in which the scrubber still finds anything is DROPPED, not redacted.
 * Chunks are scrubbed before any model sees them, so a finding here means a secret slipped past the
 * first pass or was reconstructed; a learning built around it is unsafe to publish even with the
 * match masked, because the surrounding text may still describe it. The error names only the pattern
 * types, never the matched text. A draft that passes has its person names and street addresses replaced
 * (`redactPersonal`, the scrubber's thorough tier): a learning about a colleague's key rotation keeps its lesson
 * without the colleague.
 */
export async function runPipeline(conversation: Conversation, opts: PipelineOptions): Promise<ExtractionResult> {
  const clock = opts.clock ?? systemClock;
  const scrubber = opts.scrubber ?? scrubAsync;
  const started = clock();
  const config = resolveConfig(opts.config);
  const errors: ExtractionError[] = [];
  const stats = {
    transcript_length: 0,
    chunks_processed: 0,
    chunks_failed: 0,
    raw_candidates: 0,
    passed_quality_gate: 0,
    passed_sensitivity: 0,
    passed_dedup: 0,
    final_count: 0,
    processing_time_ms: 0,
  };
  const done = (success: boolean, learnings: LearningDraft[]): ExtractionResult => {
    stats.final_count = learnings.length;
    stats.processing_time_ms = Math.max(0, Math.round(clock() - started));
    return { success, learnings, stats, errors, source: conversation.source };
  };

  const rendered = renderConversation(conversation);
  stats.transcript_length = rendered.text.length;
  if (rendered.text.length < TRANSCRIPT_MIN_CHARS) {
    errors.push({ stage: 'input', chunk: -1, message: `transcript shorter than ${TRANSCRIPT_MIN_CHARS} characters` });
    return done(false, []);
  }
  if (rendered.text.length > TRANSCRIPT_MAX_CHARS) {
    errors.push({
      stage: 'input',
      chunk: -1,
      message: `transcript of ${rendered.text.length} characters cut to the first ${TRANSCRIPT_MAX_CHARS}`,
    });
    rendered.text = rendered.text.slice(0, TRANSCRIPT_MAX_CHARS);
  }

  let whole: ScrubResult;
  try {
    whole = await scrubber(rendered.text);
  } catch (err) {
    errors.push({ stage: 'input', chunk: -1, message: `scrubber failed: ${(err as Error).message || String(err)}` });
    return done(false, []);
  }
  let scrubbed: Conversation;
  try {
    scrubbed = await scrubMessages(conversation, rendered, whole.findings, scrubber);
  } catch (err) {
    errors.push({ stage: 'input', chunk: -1, message: `scrubber failed: ${(err as Error).message || String(err)}` });
    return done(false, []);
  }
  const chunks = chunkTranscript(scrubbed, rendered, config.chunk_size, config.chunk_overlap);
  const gated: Array<{ draft: LearningDraft; total: number; chunk: number }> = [];
  for (const chunk of chunks) {
    let raw: unknown[];
    try {
      const scrubbed = await scrubber(maskWholeFindings(chunk, whole.findings));
      raw = await opts.model.extract({
        index: chunk.index,
        text: scrubbed.text,
        messages: chunk.messages,
        source: conversation.source,
      });
      if (!Array.isArray(raw)) throw new Error('extractor returned something other than an array');
      stats.chunks_processed++;
    } catch (err) {
      stats.chunks_failed++;
      errors.push({ stage: 'model', chunk: chunk.index, message: (err as Error).message || String(err) });
      continue;
    }
    stats.raw_candidates += raw.length;
    for (const item of raw) {
      const parsed = parseCandidate(item);
      if ('error' in parsed) {
        errors.push({ stage: 'validate', chunk: chunk.index, message: parsed.error });
        continue;
      }
      const c = parsed.candidate;
      const content = scoreContent(c);
      const scores = c.quality_self_assessment ? combineScores(c.quality_self_assessment, content) : content;
      const rubric = applyRubric(scores, config.quality_threshold, config.quality_min_dimension);
      if (!rubric.pass) continue;
      stats.passed_quality_gate++;
      gated.push({ draft: { ...c, quality_self_assessment: scores }, total: rubric.total, chunk: chunk.index });
    }
  }

  const clean: typeof gated = [];
  for (const g of gated) {
    let result: ScrubResult;
    try {
      result = await scrubber(draftText(g.draft));
    } catch (err) {
      errors.push({
        stage: 'sensitivity',
        chunk: g.chunk,
        message: `scrubber failed, draft dropped: ${(err as Error).message}`,
      });
      continue;
    }
    if (!result.report.clean) {
      errors.push({
        stage: 'sensitivity',
        chunk: g.chunk,
        message: `draft dropped: scrubber matched ${result.report.patterns_matched.join(', ')}`,
      });
      continue;
    }
    const draft = redactPersonal(g.draft).draft;
    // A placeholder can be longer than the name it replaces.
    const refused = refusal(draft);
    if (refused) {
      errors.push({ stage: 'validate', chunk: g.chunk, message: `draft dropped after redaction: ${refused}` });
      continue;
    }
    clean.push({ ...g, draft });
  }
  stats.passed_sensitivity = clean.length;

  // Best first, so dedup keeps the strongest of each group and the cap drops the weakest.
  const ranked = [...clean].sort((a, b) => b.total - a.total || a.chunk - b.chunk);
  const unique = dedupe(ranked, (g) => `${g.draft.title}\n${g.draft.body}`);
  stats.passed_dedup = unique.length;
  const final = unique.slice(0, config.max_learnings).map((g) => g.draft);
  return done(stats.chunks_processed > 0, final);
}
