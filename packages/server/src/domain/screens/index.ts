// All screens over one learning. Each flag becomes a review_reason; credential and personal-data findings map
// to `content_sensitivity` (the spec's review_reason list has no credential value), with the finding types in
// `sensitivity_findings`.
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
  /** What is stored: credentials and personal data replaced by `[REDACTED:<type>]`. */
  redacted: { title: string; body: string; task_context: string; tags: string[] };
}

const unique = (xs: Iterable<string>): string[] => [...new Set(xs)];

/** Runs every screen over title, body, task context and tags. */
export function screenLearning(learning: LearningText): LearningScreening {
  const fields = [learning.title, learning.task_context, learning.body, learning.tags.join(', ')];
  const all = fields.join('\n\n');
  const injection = screenInjection(all);
  const sensitivity = screenContentSensitivity(all);
  const advice = screenProcessAdvice(`${learning.title}\n\n${learning.body}`);
  const title = screenCredentials(learning.title);
  const body = screenCredentials(learning.body);
  const context = screenCredentials(learning.task_context);
  const tags = learning.tags.map((t) => screenCredentials(t));
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
