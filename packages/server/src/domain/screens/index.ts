// All screens over one learning. Each flag becomes a review_reason; credential and personal-data findings map
// to `content_sensitivity` (the spec's review_reason list has no credential value), with the finding types in
// `sensitivity_findings`.
import { PlaceholderNumbering } from '@axle/scrub';
import { screenContentSensitivity } from './content-sensitivity.js';
import { screenCredentials } from './credentials.js';
import { screenInjection } from './injection.js';
import { type InjectionFlag, SCREENED_FIELDS } from '@axle/sdk';
import type { LayerFlag } from './flags.js';
import { screenProcessAdvice } from './process-advice.js';

export { screenContentSensitivity } from './content-sensitivity.js';
export { screenCredentials } from './credentials.js';
export { screenInjection } from './injection.js';
export type { InjectionLayer, LayerFlag } from './flags.js';
export type { InjectionFlag } from '@axle/sdk';
export { screenProcessAdvice } from './process-advice.js';
export type { ScreenResult } from './result.js';
export { screenMetrics } from './evaluate.js';
export { SEMANTIC_SCREENS, type SemanticScreenName } from './semantic.js';
export type { LabelledItem, ScreenMetrics } from './evaluate.js';

/** Each screen by the name of its corpus (test/corpora/screens/<name>.json). */
export const SCREENS: Readonly<Record<string, (text: string) => { flagged: boolean; findings: string[] }>> = {
  injection: (text) => screenInjection(text),
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
 * credentials screen has no semantic side; its figure is the scrubber's own. Injection has none either: its
 * targets are the injection eval's (bench/lib/injection-eval.js).
 */
export const COMBINED_HOLDOUT_TARGETS: Readonly<Record<string, { recall: number; falsePositiveRate: number }>> = {
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
  /** Shown to a buyer beside the body (GET /knowledge/{id}, svc_unlock), so screened and redacted like it. */
  contributor_agent?: string;
  related_skills?: readonly string[];
  /** The name of the API key that submits it, stored with the learning and shown to buyers. */
  contributor_key_label?: string | null;
}

/** The learning's fields, in the order the screens read them. */
export type LearningField = (typeof SCREENED_FIELDS)[number];

/** What matched, as a reviewer's flag quotes it, at most this many characters. */
export const EXCERPT_MAX = 200;

export interface LearningScreening {
  /** In this order: injection, content_sensitivity, process_advice; empty when every screen is clean. */
  flags: ScreenFlag[];
  /** Every injection layer's flags, in layer order (the pending item's `injection_flags`). */
  injection_flags: InjectionFlag[];
  /** Credential and personal-data finding types, then content-sensitivity findings. */
  sensitivity_findings: string[];
  /** What is stored: credentials and personal data replaced by `[REDACTED:<type>]`, `[PERSON_n]`, `[ADDRESS_n]`. */
  redacted: {
    title: string;
    body: string;
    task_context: string;
    tags: string[];
    contributor_agent: string;
    related_skills: string[];
    contributor_key_label: string | null;
  };
}

const unique = (xs: Iterable<string>): string[] => [...new Set(xs)];

const FIELDS: readonly LearningField[] = SCREENED_FIELDS;
const FIELD_GAP = '\n\n';

/** Each field's text, in FIELDS order (lists joined with `, `). */
const fieldTexts = (learning: LearningText): string[] => [
  learning.title,
  learning.task_context,
  learning.body,
  learning.tags.join(', '),
  learning.contributor_agent ?? '',
  (learning.related_skills ?? []).join(', '),
  learning.contributor_key_label ?? '',
];

/**
 * What the screens read: injection and sensitivity every field a reader is shown (`all`, the fields joined in
 * FIELDS order); process advice the title and body (`advice`), where the learning says what it teaches; an
 * off-task request is measured against the title and task context (`task`).
 */
export function screenedTexts(learning: LearningText): { all: string; advice: string; task: string } {
  return {
    all: fieldTexts(learning).join(FIELD_GAP),
    advice: `${learning.title}\n\n${learning.body}`,
    task: `${learning.title}\n${learning.task_context}`,
  };
}

/** A layer's flag over the joined text as a reviewer's flag: the field it falls in, offsets within that field. */
export function toInjectionFlag(learning: LearningText, all: string, flag: LayerFlag): InjectionFlag {
  const fields = fieldTexts(learning);
  let at = 0;
  for (let i = 0; i < fields.length; i++) {
    const end = at + fields[i]!.length;
    if (flag.start < end || i === fields.length - 1) {
      const start = Math.max(0, flag.start - at);
      const stop = Math.min(fields[i]!.length, Math.max(start, flag.end - at));
      return {
        layer: flag.layer,
        rule: flag.rule,
        span: { field: FIELDS[i]!, start, end: stop },
        excerpt: all.slice(flag.start, Math.min(flag.end, flag.start + EXCERPT_MAX)),
      };
    }
    at = end + FIELD_GAP.length;
  }
  throw new Error('unreachable');
}

/** The sentence model's part of a screening, when it answered in time. */
export interface ModelScreening {
  /** The off-task layer's flags by similarity (offsets of `screenedTexts(...).all`). */
  offTask?: readonly LayerFlag[];
}

/** Runs every screen over title, body, task context, tags and the contributor fields a buyer is shown. */
export function screenLearning(learning: LearningText, model: ModelScreening = {}): LearningScreening {
  const { all, advice: adviceText, task } = screenedTexts(learning);
  const injection = screenInjection(all, { context: task, offTask: model.offTask });
  const sensitivity = screenContentSensitivity(all);
  const advice = screenProcessAdvice(adviceText);
  // One numbering, so a name is the same [PERSON_n] in every field.
  const numbering = new PlaceholderNumbering();
  const title = screenCredentials(learning.title, numbering);
  const body = screenCredentials(learning.body, numbering);
  const context = screenCredentials(learning.task_context, numbering);
  const tags = learning.tags.map((t) => screenCredentials(t, numbering));
  const agent = screenCredentials(learning.contributor_agent ?? '', numbering);
  const skills = (learning.related_skills ?? []).map((s) => screenCredentials(s, numbering));
  const label = learning.contributor_key_label ? screenCredentials(learning.contributor_key_label, numbering) : null;
  const credentialFindings = unique(
    [title, context, body, ...tags, agent, ...skills, ...(label ? [label] : [])].flatMap((r) => r.findings),
  );
  const sensitivityFindings = unique([...credentialFindings, ...sensitivity.findings]);
  const flags: ScreenFlag[] = [];
  if (injection.flagged) flags.push('injection');
  if (sensitivityFindings.length > 0) flags.push('content_sensitivity');
  if (advice.flagged) flags.push('process_advice');
  return {
    flags,
    injection_flags: injection.flags.map((f) => toInjectionFlag(learning, all, f)),
    sensitivity_findings: sensitivityFindings,
    redacted: {
      title: title.redacted,
      body: body.redacted,
      task_context: context.redacted,
      tags: tags.map((t) => t.redacted),
      contributor_agent: agent.redacted,
      related_skills: skills.map((s) => s.redacted),
      contributor_key_label: label ? label.redacted : (learning.contributor_key_label ?? null),
    },
  };
}

/** The finding a semantic flag adds to `sensitivity_findings` (and once added to `injection_flags`). */
export const SEMANTIC_FINDING = 'semantic_similarity';
const FLAG_ORDER: readonly ScreenFlag[] = ['injection', 'content_sensitivity', 'process_advice'];

/** A screening with the semantic screens' flags added: a learning is held when either side flags it. */
export function withSemanticFlags(screening: LearningScreening, semantic: readonly ScreenFlag[]): LearningScreening {
  const has = (flag: ScreenFlag) => semantic.includes(flag);
  return {
    ...screening,
    flags: FLAG_ORDER.filter((f) => screening.flags.includes(f) || has(f)),
    sensitivity_findings: has('content_sensitivity')
      ? unique([...screening.sensitivity_findings, SEMANTIC_FINDING])
      : screening.sensitivity_findings,
  };
}
