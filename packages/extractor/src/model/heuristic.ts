import type { Message } from '../conversation.js';
import { scoreContent } from '../pipeline/rubric.js';
import type { Candidate } from '../pipeline/validate.js';
import type { LearningCategory } from '../types.js';
import type { Model, ModelInput } from './model.js';

const ERROR_LINE =
  /\b(?:error|exception|traceback|failed|failure|cannot|can't|could not|not found|denied|refused|timed? ?out|panic)\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]{3,}\b|\bE[A-Z]{3,}\b/i;
const RESOLVED =
  /\b(?:fixed|resolved|works now|now works|working now|the fix|root cause|the issue was|the problem was|solved|that did it|passes now|now passes)\b/i;
const WORKAROUND = /\b(?:workaround|for now|temporar(?:y|ily)|instead of fixing|skip(?:ped)? it)\b/i;

const CATEGORY_HINTS: Array<[LearningCategory, RegExp]> = [
  [
    'code-execution',
    /\b(?:module|import|compile[rd]?|tsc|typescript|build|tests?|npm|node|python3?|exception|stack|esm|syntax|runtime)\b/gi,
  ],
  ['payment-financial', /\b(?:stripe|payment|invoice|usdc|checkout|refund|billing)\b/gi],
  ['monitoring', /\b(?:prometheus|grafana|metrics?|alert(?:ing)?|datadog|sentry|healthcheck)\b/gi],
  [
    'storage-state',
    /\b(?:sqlite|postgres(?:ql)?|pg_dump|mysql|redis|database|migration|s3|bucket|disk|backup|restore|lockfile)\b/gi,
  ],
  [
    'web-interaction',
    /\b(?:https?|fetch|curl|cors|request|endpoint|status \d{3}|429|40[0-4]|50[0-4]|browser|playwright|oauth|webhook|rate limit)\b/gi,
  ],
  ['data-processing', /\b(?:csv|json|parse|parsing|encoding|utf-?8|pandas|dataframe|schema|regex)\b/gi],
];
const TECH =
  /\b(node(?:\.js)?|npm|pnpm|yarn|typescript|tsc|vitest|jest|python3?|pip|requests|docker|git|postgres(?:ql)?|sqlite|redis|react|vite|webpack|esm|rust|cargo|go|kubernetes|nginx|koa|express|undici|zod)\b/gi;

const oneLine = (s: string, max: number): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

function errorLine(text: string): string | undefined {
  return text
    .split('\n')
    .find((l) => ERROR_LINE.test(l) && l.trim().length >= 8)
    ?.trim();
}

function isProblem(m: Message): boolean {
  if (m.kind === 'tool_result') return m.is_error === true || errorLine(m.text) !== undefined;
  return m.kind === 'text' && m.role === 'user' && errorLine(m.text) !== undefined;
}

/**
 * Absolute paths name the user's machine; keep only the last two segments. A segment the scrubber redacted (the user
 * name in `/home/<user>/...`) is still a segment.
 */
function shortenPaths(text: string): string {
  return text.replace(
    /(?<![:/\w\]])(?:[A-Za-z]:)?(?:[\\/](?:[\w.@-]|\[REDACTED:[\w-]+\])+){3,}/g,
    (p) => `…/${p.split(/[\\/]/).slice(-2).join('/')}`,
  );
}

/** A command as one string: Codex's `shell` tool passes argv, `["bash", "-lc", "npm test"]`, the script last. */
function commandOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v) || v.length === 0 || !v.every((a) => typeof a === 'string')) return undefined;
  const [shell, flag, script] = v as string[];
  if (v.length === 3 && /(?:^|\/)(?:ba|z)?sh$/.test(shell ?? '') && /^-l?c$/.test(flag ?? '')) return script;
  return v.join(' ');
}

const code = (s: string): string => `\`${oneLine(s, 160).replace(/`/g, "'")}\``;

/** One readable line for a tool call: the command run, or the replacement an edit made. */
function describeAttempt(m: Message): string {
  let input: Record<string, unknown> | undefined;
  try {
    const v: unknown = JSON.parse(m.text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) input = v as Record<string, unknown>;
  } catch {
    input = undefined;
  }
  const str = (...keys: string[]): string | undefined => {
    for (const k of keys) if (typeof input?.[k] === 'string') return input[k] as string;
    return undefined;
  };
  const command = commandOf(input?.command) ?? str('cmd');
  if (command) return `run ${code(shortenPaths(command))}`;
  const file = str('file_path', 'path', 'filePath');
  const before = str('old_string', 'oldText', 'old_str');
  const after = str('new_string', 'newText', 'new_str');
  const where = file ? ` in ${shortenPaths(file).replace(/^…\//, '')}` : '';
  if (before !== undefined && after !== undefined) return `replace ${code(before)} with ${code(after)}${where}`;
  if (file) return `${m.tool ?? 'tool'} ${shortenPaths(file)}`;
  return `${m.tool ?? 'tool'} ${code(shortenPaths(m.text))}`;
}

/** The resolution message's sentences that explain the fix, minus the problem line already quoted. */
function explanation(m: Message | undefined, problem: string): string {
  if (!m) return '';
  const sentences = m.text
    .split(/(?<=[.!?])\s+|\n+/)
    .filter((s) => s.trim().length > 0 && !/^#+\s/.test(s) && !problem.includes(s.trim()) && !s.includes(problem));
  const cued = sentences.filter((s) => RESOLVED.test(s) || /\bbecause\b|\binstead\b|\bneeds?\b|\bmust\b/i.test(s));
  return shortenPaths(oneLine((cued.length > 0 ? cued : sentences).slice(0, 4).join(' '), 600));
}

/** The category with the most keyword hits; code-execution on a tie or no hits, as most arcs are build/run errors. */
function categoryOf(text: string): LearningCategory {
  let best: LearningCategory = 'code-execution';
  let bestHits = 0;
  for (const [cat, re] of CATEGORY_HINTS) {
    const hits = text.match(re)?.length ?? 0;
    if (hits > bestHits) {
      best = cat;
      bestHits = hits;
    }
  }
  return best;
}

function tagsOf(text: string, category: LearningCategory): string[] {
  const found = [...text.matchAll(TECH)].map((m) =>
    (m[1] ?? '')
      .toLowerCase()
      .replace('.js', '')
      .replace(/^python3$/, 'python'),
  );
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

/** The index of the tool_use a tool_result answers: the closest preceding call of the same tool. */
function callOf(messages: Message[], resultAt: number): number {
  const tool = messages[resultAt]?.tool;
  for (let k = resultAt - 1; k >= 0; k--) {
    const m = messages[k];
    if (m?.kind === 'tool_use' && (tool === undefined || m.tool === tool)) return k;
  }
  return -1;
}

/**
 * Finds problem -> attempts -> resolution arcs: an error (a failing tool result or a pasted error),
 * the calls made after it, and the resolution: a later successful result of the tool that failed (the
 * re-run), or an assistant message saying it is fixed. The call before the re-run is the fix; a result
 * of some other tool (an edit saying "updated") is progress, not resolution. Errors met on the way are
 * part of the same arc.
 */
function findArcs(messages: Message[]): Arc[] {
  const arcs: Arc[] = [];
  const used = new Set<Message>();
  const firstUser = messages.find((m) => m.role === 'user' && m.kind === 'text');
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (!m || !isProblem(m)) {
      i++;
      continue;
    }
    const problem = errorLine(m.text) ?? oneLine(m.text, 200);
    let verifiedAt = -1;
    let expl: Message | undefined;
    let end = -1;
    for (let j = i + 1; j < messages.length; j++) {
      const n = messages[j];
      if (!n) break;
      if (n.kind === 'tool_result' && n.tool === m.tool && m.kind === 'tool_result' && !isProblem(n)) verifiedAt = j;
      if (n.kind === 'text' && n.role === 'assistant' && RESOLVED.test(n.text)) {
        expl = n;
        end = j;
        break;
      }
      // After a successful re-run, the next user turn or next problem starts something new.
      if (verifiedAt !== -1 && j > verifiedAt && (isProblem(n) || (n.role === 'user' && n.kind === 'text'))) break;
    }
    if (end === -1) end = verifiedAt;
    const calls = messages.slice(i + 1, end === -1 ? i + 1 : end).filter((n) => n.kind === 'tool_use');
    if (end !== -1 && (calls.length > 0 || expl)) {
      const rerun = verifiedAt !== -1 ? callOf(messages, verifiedAt) : -1;
      const beforeRerun = calls.filter((c) => messages.indexOf(c) < (rerun === -1 ? end : rerun));
      const fix = beforeRerun[beforeRerun.length - 1] ?? calls[calls.length - 1];
      if (expl) used.add(expl);
      arcs.push({
        problem,
        attempts: beforeRerun.filter((c) => c !== fix && c.tool !== m.tool),
        fix,
        explanation: expl,
        // POST /learn needs a task context: a session without a request of the user's gets the problem's line.
        context: oneLine(firstUser?.text ?? '', 200) || oneLine(shortenPaths(problem), 200),
      });
      i = end + 1;
    } else i++;
  }
  // Notes that tell the whole story in one message (memory files): an error line and a resolution line.
  for (const m of messages) {
    if (used.has(m) || m.kind !== 'text' || m.role !== 'assistant' || !RESOLVED.test(m.text)) continue;
    // Notes wrap lines mid-sentence, so look for the error sentence rather than the error line.
    const problem = oneLine(m.text.replace(/^#.*$/m, ''), 10_000)
      .split(/(?<=[.!?])\s+/)
      .find((s) => ERROR_LINE.test(s) && !RESOLVED.test(s));
    if (!problem) continue;
    const heading = m.text.split('\n')[0]?.replace(/^#+\s*/, '') ?? '';
    arcs.push({
      problem,
      attempts: [],
      fix: undefined,
      explanation: m,
      context: oneLine(heading, 200) || oneLine(shortenPaths(problem), 200),
    });
  }
  return arcs;
}

function toCandidate(arc: Arc): Candidate {
  const parts = [`Problem: ${shortenPaths(oneLine(arc.problem, 300))}`];
  if (arc.attempts.length > 0) parts.push(`Tried first: ${arc.attempts.slice(-3).map(describeAttempt).join('; ')}.`);
  if (arc.fix) parts.push(`Fix: ${describeAttempt(arc.fix)}.`);
  const why = explanation(arc.explanation, arc.problem);
  if (why) parts.push(why);
  const body = parts.join('\n\n');
  const all = `${arc.problem}\n${body}\n${arc.context}`;
  const category = categoryOf(all);
  const outcome = WORKAROUND.test(all) ? 'workaround' : 'success';
  const draft = {
    title: `Fix for: ${oneLine(shortenPaths(arc.problem), 90)}`,
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
