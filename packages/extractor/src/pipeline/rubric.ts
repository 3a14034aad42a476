import type { LearningDraft, QualityScores } from '../types.js';

export interface RubricResult {
  scores: QualityScores;
  total: number;
  pass: boolean;
}

const clamp = (n: number): number => Math.max(1, Math.min(5, Math.round(n)));
const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

const CONCRETE = [
  /`[^`\n]{2,}`/g, // inline code: commands, identifiers, flags
  /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g, // error codes like ERR_MODULE_NOT_FOUND
  /\bv?\d+\.\d+(?:\.\d+)?\b/g, // versions
  /(?:^|\s)--?[a-z][a-z-]+/g, // CLI flags
  /(?:\.{0,2}\/)?[\w.-]+\/[\w./-]+/g, // paths
  /\b(?:[1-5]\d\d)\b/g, // HTTP status codes, exit codes
];
const ACTION =
  /\b(us(?:e|ed|ing)|set(?:ting)?|add(?:ed|ing)?|run(?:ning)?|replac\w*|pinn?\w*|install\w*|remov\w*|pass(?:ed|ing)?|call\w*|configur\w*|enabl\w*|disabl\w*|upgrad\w*|downgrad\w*|renam\w*|wrap\w*|point(?:ed|ing)?|switch\w*|instead|retr(?:y|ies|ied)|honou?r\w*|batch\w*|map(?:s|ped)?|writ(?:e|ing)|verif(?:y|ied|ying)|mount\w*|mov(?:e|ed|ing)|restart\w*|fix(?:ed)? by)\b/gi;
const GENERIC = /\b(make sure|best practice|be careful|double[- ]check|always remember|it depends|in general)\b/gi;
const INSIGHT = /\b(because|root cause|turns out|undocumented|silently|only when|unless|caused by|the reason)\b/gi;
const PROBLEM =
  /\b(error|fail(?:ed|s|ure)?|exception|crash(?:ed|es)?|broke|refused|denied|timeout|timed out|not found)\b/i;
const RESOLUTION = /\b(fix(?:ed)?|resolv(?:ed|es)|solution|works?|worked|succeed(?:ed|s)?|passes|passed)\b/i;

/**
 * The spec's quality rubric computed from the draft's own text: four dimensions of 1..5 each. Pure.
 * Scores reward concrete detail (specificity), instructions one can follow (actionability), an
 * explanation beyond generic advice (novelty) and a full problem-to-resolution story (completeness).
 */
export function scoreContent(d: Pick<LearningDraft, 'title' | 'body' | 'task_context'>): QualityScores {
  const text = `${d.title}\n${d.body}`;
  const concrete = CONCRETE.reduce((n, re) => n + count(text, re), 0);
  const codeBlock = /```/.test(d.body) ? 1 : 0;
  const specificity = 1 + Math.min(4, concrete);
  const actionability = 1 + Math.min(3, count(d.body, ACTION)) + codeBlock;
  const novelty = 2 + Math.min(3, count(text, INSIGHT) + (concrete >= 4 ? 1 : 0)) - Math.min(2, count(text, GENERIC));
  const completeness =
    1 +
    (PROBLEM.test(text) ? 1 : 0) +
    (RESOLUTION.test(d.body) ? 1 : 0) +
    (d.task_context.trim().length >= 20 ? 1 : 0) +
    (d.body.length >= 200 ? 1 : 0);
  return {
    specificity: clamp(specificity),
    actionability: clamp(actionability),
    novelty: clamp(novelty),
    completeness: clamp(completeness),
  };
}

/** Per-dimension minimum: a draft never scores higher than what its extractor claimed or its text shows. */
export function combineScores(a: QualityScores, b: QualityScores): QualityScores {
  return {
    specificity: Math.min(a.specificity, b.specificity),
    actionability: Math.min(a.actionability, b.actionability),
    novelty: Math.min(a.novelty, b.novelty),
    completeness: Math.min(a.completeness, b.completeness),
  };
}

/** The gate: total at least `threshold` and every dimension at least `minDimension`. Pure. */
export function applyRubric(scores: QualityScores, threshold: number, minDimension: number): RubricResult {
  const values = [scores.specificity, scores.actionability, scores.novelty, scores.completeness];
  const total = values.reduce((a, b) => a + b, 0);
  return { scores, total, pass: total >= threshold && values.every((v) => v >= minDimension) };
}
