import { LearnRequest } from '@axle/sdk';
import { isRecord } from '../readers/line-parser.js';
import {
  LEARNING_CATEGORIES,
  type LearningCategory,
  type LearningDraft,
  OUTCOMES,
  type Outcome,
  type QualityScores,
} from '../types.js';

/** A draft as an extractor proposed it; the self-assessment may be missing and is then scored by the rubric. */
export type Candidate = Omit<LearningDraft, 'quality_self_assessment'> & { quality_self_assessment?: QualityScores };

/** Tags a draft keeps: the submitter adds its `source:<client>` tag, and POST /learn takes up to 20. */
const MAX_TAGS = 10;
const DIMENSIONS = ['specificity', 'actionability', 'novelty', 'completeness'] as const;

function scores(v: unknown): QualityScores | undefined {
  if (!isRecord(v)) return undefined;
  const out: Partial<QualityScores> = {};
  for (const d of DIMENSIONS) {
    const n = v[d];
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 1 || n > 5) return undefined;
    out[d] = Math.round(n);
  }
  return out as QualityScores;
}

/**
 * Normalises an extractor's raw output (trimmed fields, tags lower-cased and deduplicated) and checks it: a learning
 * category (the retired ones the server refuses too), an outcome, then the POST /learn request schema itself. Returns
 * the candidate or the reason it is unusable.
 */
export function parseCandidate(raw: unknown): { candidate: Candidate } | { error: string } {
  if (!isRecord(raw)) return { error: 'candidate is not an object' };
  const title = typeof raw.title === 'string' ? raw.title.trim() : '';
  const body = typeof raw.body === 'string' ? raw.body.trim() : '';
  if (!LEARNING_CATEGORIES.includes(raw.category as LearningCategory)) {
    return { error: `category ${JSON.stringify(String(raw.category)).slice(0, 40)} is not a learning category` };
  }
  if (!OUTCOMES.includes(raw.outcome as Outcome))
    return { error: 'outcome is not one of success|partial|failure|workaround' };
  const tags = Array.isArray(raw.tags)
    ? [
        ...new Set(
          raw.tags
            .filter((t): t is string => typeof t === 'string')
            .map((t) => t.trim().toLowerCase())
            .filter(Boolean),
        ),
      ]
    : [];
  const candidate: Candidate = {
    title,
    body,
    category: raw.category as LearningCategory,
    tags: tags.slice(0, MAX_TAGS),
    task_context: typeof raw.task_context === 'string' ? raw.task_context.trim() : '',
    outcome: raw.outcome as Outcome,
  };
  const q = scores(raw.quality_self_assessment);
  if (q) candidate.quality_self_assessment = q;
  const refused = refusal(candidate);
  return refused ? { error: refused } : { candidate };
}

/**
 * Why POST /learn would refuse `draft` (its request schema, the server's own: lengths in visible characters, a
 * task_context, each tag's length), or undefined. A draft it would refuse is dropped here, not queued to fail there.
 */
export function refusal(draft: Candidate): string | undefined {
  const parsed = LearnRequest.safeParse(draft);
  return parsed.success ? undefined : parsed.error.issues.map((i) => i.message).join('; ');
}
