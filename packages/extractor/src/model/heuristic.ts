import type { Message } from '../conversation.js';
import { scoreContent } from '../pipeline/rubric.js';
import type { Candidate } from '../pipeline/validate.js';
import type { LearningCategory } from '../types.js';
import type { Model, ModelInput } from './model.js';

const ERROR_LINE =
  /\b(?:error|exception|traceback|failed|failure|cannot|can't|could not|not found|denied|refused|timed? ?out|panic)\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]{3,}\b|\bE[A-Z]{3,}\b/i;
const RESOLVED = /\b(?:fixed|resolved|works now|now works|working now|the fix|root cause|the issue was|the problem was|solved|that did it|passes now|now passes)\b/i;
const WORKAROUND = /\b(?:workaround|for now|temporar(?:y|ily)|instead of fixing|skip(?:ped)? it)\b/i;

const CATEGORY_HINTS: Array<[LearningCategory, RegExp]> = [
  ['payment-financial', /\b(?:stripe|payment|invoice|usdc|checkout|refund|billing)\b/i],
  ['monitoring', /\b(?:prometheus|grafana|metrics?|alert(?:ing)?|datadog|sentry|healthcheck)\b/i],
  ['storage-state', /\b(?:sqlite|postgres(?:ql)?|mysql|redis|database|migration|s3|bucket|disk|cache|lockfile)\b/i],
  ['web-interaction', /\b(?:https?|fetch|curl|cors|api|request|endpoint|status \d{3}|[45]\d\d\b|browser|playwright|oauth)\b/i],
  ['data-processing', /\b(?:csv|json|parse|parsing|encoding|utf-?8|pandas|dataframe|schema|regex)\b/i],
];
const TECH = /\b(node(?:\.js)?|npm|pnpm|yarn|typescript|tsc|vitest|jest|python|pip|docker|git|postgres(?:ql)?|sqlite|redis|react|vite|webpack|esm|rust|cargo|go|kubernetes|nginx|koa|express|undici|zod)\b/gi;

const oneLine = (s: string, max: number): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

function errorLine(text: string): string | undefined {
  return text.split('\n').find((l) => ERROR_LINE.test(l) && l.trim().length >= 8)?.trim();
}

function isProblem(m: Message): boolean {
  if (m.kind === 'tool_result') return m.is_error === true || errorLine(m.text) !== undefined;
  return m.kind === 'text' && m.role === 'user' && errorLine(m.text) !== undefined;
}

function describeAttempt(m: Message): string {
  const input = m.text.length > 0 ? oneLine(m.text, 160) : '';
  return `${m.tool ?? 'tool'}: \`${input.replace(/`/g, "'")}\``;
}

function explanation(m: Message | undefined): string {
  if (!m) return '';
  const sentences = m.text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);
  const cued = sentences.filter((s) => RESOLVED.test(s) || /\bbecause\b|\binstead\b|\bneeds?\b|\bmust\b/i.test(s));
  return oneLine((cued.length > 0 ? cued : sentences).slice(0, 4).join(' '), 600);
}

function categoryOf(text: string): LearningCategory {
  for (const [cat, re] of CATEGORY_HINTS) if (re.test(text)) return cat;
  return 'code-execution';
}

function tagsOf(text: string, category: LearningCategory): string[] {
  const found = [...text.matchAll(TECH)].map((m) => (m[1] ?? '').toLowerCase().replace('.js', ''));
  const tags = [...new Set(found)].slice(0, 6);
  return tags.length > 0 ? tags : [category];
}

interface Arc {
  problem: string;
  attempts: Message[];
  fix: Message | undefined;
  explanation: Message | undefined;
  context: string;
}

/**
 * Finds problem -> attempts -> resolution arcs: an error (a failing tool result or a pasted error), the
 * tool calls made after it, and the point where it was resolved (a later successful result of the same
 * tool, or an assistant message saying what fixed it). The last call before the resolution is the fix.
 */
function findArcs(messages: Message[]): Arc[] {
  const arcs: Arc[] = [];
  const firstUser = messages.find((m) => m.role === 'user' && m.kind === 'text');
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (!m || !isProblem(m)) {
      i++;
      continue;
    }
    const problem = errorLine(m.text) ?? oneLine(m.text, 200);
    const attempts: Message[] = [];
    let resolvedAt = -1;
    let expl: Message | undefined;
    for (let j = i + 1; j < messages.length; j++) {
      const n = messages[j];
      if (!n) break;
      if (n.kind === 'tool_use') attempts.push(n);
      else if (n.kind === 'tool_result' && attempts.length > 0 && !n.is_error && errorLine(n.text) === undefined) {
        resolvedAt = j;
      } else if (n.kind === 'text' && n.role === 'assistant' && RESOLVED.test(n.text)) {
        expl = n;
        resolvedAt = j;
        break;
      } else if (n.kind === 'tool_result' && isProblem(n) && resolvedAt !== -1) {
        break; // a new problem after a success: the previous arc is complete
      }
    }
    if (resolvedAt !== -1 && attempts.length > 0) {
      const before = attempts.filter((a) => messages.indexOf(a) < resolvedAt);
      arcs.push({
        problem,
        attempts: before.slice(0, -1),
        fix: before[before.length - 1],
        explanation: expl,
        context: firstUser ? oneLine(firstUser.text, 200) : '',
      });
      i = resolvedAt + 1;
    } else i++;
  }
  // Notes that tell the whole story in one message (memory files): an error line and a resolution line.
  for (const m of messages) {
    if (m.kind !== 'text' || m.role !== 'assistant' || !RESOLVED.test(m.text)) continue;
    const problem = errorLine(m.text);
    if (!problem) continue;
    const heading = m.text.split('\n')[0]?.replace(/^#+\s*/, '') ?? '';
    arcs.push({ problem, attempts: [], fix: undefined, explanation: m, context: oneLine(heading, 200) });
  }
  return arcs;
}

function toCandidate(arc: Arc): Candidate {
  const parts = [`Problem: ${oneLine(arc.problem, 300)}`];
  if (arc.attempts.length > 0) parts.push(`Tried first: ${arc.attempts.slice(-3).map(describeAttempt).join('; ')}.`);
  if (arc.fix) parts.push(`What fixed it: ${describeAttempt(arc.fix)}.`);
  const why = explanation(arc.explanation);
  if (why) parts.push(why);
  const body = parts.join('\n\n');
  const all = `${arc.problem}\n${body}\n${arc.context}`;
  const category = categoryOf(all);
  const outcome = WORKAROUND.test(all) ? 'workaround' : 'success';
  const draft = {
    title: `Fix for: ${oneLine(arc.problem, 90)}`,
    body,
    category,
    tags: tagsOf(all, category),
    task_context: arc.context,
    outcome,
  } as const;
  // A heuristic cannot judge its own work better than the rubric does, so it claims what the rubric finds.
  return { ...draft, tags: [...draft.tags], quality_self_assessment: scoreContent(draft) };
}

/** The built-in extractor: no model, no network. */
export class HeuristicModel implements Model {
  readonly name = 'heuristic';

  async extract(input: ModelInput): Promise<unknown[]> {
    return findArcs(input.messages).map(toCandidate);
  }
}
