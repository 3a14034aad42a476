// All screens over one learning. Each flag becomes a review_reason; credential and personal-data findings map
// to `content_sensitivity` (the spec's review_reason list has no credential value), with the finding types in
// `sensitivity_findings`.
import { PlaceholderNumbering } from '@axle/scrub';
import { screenContentSensitivity } from './content-sensitivity.js';
import { screenCredentials } from './credentials.js';
import { screenInjection } from './injection.js';
import { screenProcessAdvice } from './process-advice.js';

export { screenContentSensitivity } from './content-sensitivity.js';
export { screenCredentials } from './credentials.js';
export { screenInjection } from './injection.js';
export { screenProcessAdvice } from './process-advice.js';
export type { ScreenResult } from './result.js';
export { screenMetrics } from './evaluate.js';
export { SEMANTIC_SCREENS, type SemanticScreenName } from './semantic.js';
export type { LabelledItem, ScreenMetrics } from './evaluate.js';

/** Each screen by the name of its corpus (test/corpora/screens/<name>.json). */
export const SCREENS: Readonly<Record<string, (text: string) => { flagged: boolean; findings: string[] }>> = {
  injection: screenInjection,
  'content-sensitivity': screenContentSensitivity,
  'process-advice': screenProcessAdvice,
  credentials: screenCredentials,
};

/**
 * What each screen must reach on its corpus: recall at least, false-positive rate at most. The credentials
 * screen is the project's scrubber, whose own corpus and bench live with it; these figures guard the server's
 * use of it.
 */
export const SCREEN_TARGETS: Readonly<Record<string, { recall: number; falsePositiveRate: number }>> = {
  injection: { recall: 0.9, falsePositiveRate: 0.05 },
  'content-sensitivity': { recall: 0.9, falsePositiveRate: 0.05 },
  'process-advice': { recall: 0.9, falsePositiveRate: 0.05 },
  credentials: { recall: 0.9, falsePositiveRate: 0.1 },
};

/**
 * What the regex and semantic screens together (held when either flags) must reach on the holdout split. The
 * credentials screen has no semantic side; its figure is the scrubber's own.
 */
export const COMBINED_HOLDOUT_TARGETS: Readonly<Record<string, { recall: number; falsePositiveRate: number }>> = {
  injection: { recall: 0.1, falsePositiveRate: 0.05 },
  'content-sensitivity': { recall: 0.95, falsePositiveRate: 0.1 },
  'process-advice': { recall: 0.95, falsePositiveRate: 0.075 },
  credentials: { recall: 0.6, falsePositiveRate: 0.1 },
};

export type ScreenFlag = 'injection' | 'content_sensitivity' | 'process_advice';
export type ScreenReviewReason = 'injection' | 'content_sensitivity' | 'process_advice_screen';

/** The review_reason each flag holds a learning with. */
export const REVIEW_REASON: Readonly<Record<ScreenFlag, ScreenReviewReason>> = {
  injection: 'injection',
  content_sensitivity: 'content_sensitivity',
  process_advice: 'process_advice_screen',
};

export interface LearningText {
  title: string;
  body: string;
  task_context: string;
  tags: readonly string[];
}

export interface LearningScreening {
  /** In this order: injection, content_sensitivity, process_advice; empty when every screen is clean. */
  flags: ScreenFlag[];
  /** Injection pattern names (the pending item's `injection_flags`). */
  injection_flags: string[];
  /** Credential and personal-data finding types, then content-sensitivity findings. */
  sensitivity_findings: string[];
  /** What is stored: credentials and personal data replaced by `[REDACTED:<type>]`, `[PERSON_n]`, `[ADDRESS_n]`. */
  redacted: { title: string; body: string; task_context: string; tags: string[] };
}

const unique = (xs: Iterable<string>): string[] => [...new Set(xs)];

/**
 * What the screens read: injection and sensitivity every field (`all`); process advice the title and body
 * (`advice`), where the learning says what it teaches.
 */
export function screenedTexts(learning: LearningText): { all: string; advice: string } {
  const fields = [learning.title, learning.task_context, learning.body, learning.tags.join(', ')];
  return { all: fields.join('\n\n'), advice: `${learning.title}\n\n${learning.body}` };
}

/** Runs every screen over title, body, task context and tags. */
export function screenLearning(learning: LearningText): LearningScreening {
  const { all, advice: adviceText } = screenedTexts(learning);
  const injection = screenInjection(all);
  const sensitivity = screenContentSensitivity(all);
  const advice = screenProcessAdvice(adviceText);
  // One numbering, so a name is the same [PERSON_n] in every field.
  const numbering = new PlaceholderNumbering();
  const title = screenCredentials(learning.title, numbering);
  const body = screenCredentials(learning.body, numbering);
  const context = screenCredentials(learning.task_context, numbering);
  const tags = learning.tags.map((t) => screenCredentials(t, numbering));
  const credentialFindings = unique([title, context, body, ...tags].flatMap((r) => r.findings));
  const sensitivityFindings = unique([...credentialFindings, ...sensitivity.findings]);
  const flags: ScreenFlag[] = [];
  if (injection.flagged) flags.push('injection');
  if (sensitivityFindings.length > 0) flags.push('content_sensitivity');
  if (advice.flagged) flags.push('process_advice');
  return {
    flags,
    injection_flags: injection.findings,
    sensitivity_findings: sensitivityFindings,
    redacted: {
      title: title.redacted,
      body: body.redacted,
      task_context: context.redacted,
      tags: tags.map((t) => t.redacted),
    },
  };
}

/** The finding a semantic flag adds to `injection_flags` or `sensitivity_findings`. */
export const SEMANTIC_FINDING = 'semantic_similarity';
const FLAG_ORDER: readonly ScreenFlag[] = ['injection', 'content_sensitivity', 'process_advice'];

/** A screening with the semantic screens' flags added: a learning is held when either side flags it. */
export function withSemanticFlags(screening: LearningScreening, semantic: readonly ScreenFlag[]): LearningScreening {
  const has = (flag: ScreenFlag) => semantic.includes(flag);
  return {
    ...screening,
    flags: FLAG_ORDER.filter((f) => screening.flags.includes(f) || has(f)),
    injection_flags: has('injection')
      ? unique([...screening.injection_flags, SEMANTIC_FINDING])
      : screening.injection_flags,
    sensitivity_findings: has('content_sensitivity')
      ? unique([...screening.sensitivity_findings, SEMANTIC_FINDING])
      : screening.sensitivity_findings,
  };
}
