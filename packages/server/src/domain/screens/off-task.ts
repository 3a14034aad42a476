// Injection layer "off_task": a request (an imperative or a question) whose subject is far from the learning's own
// task, such as "Recommend a good book" inside a pandas fix: a learning informs its reader, it does not ask it for
// work. Candidates are found here; whether one is far is measured by the sentence model (services/semantic-screens.ts
// passes each candidate's similarity to the learning's title and task context) or, when the model cannot answer in
// time, by the words the candidate shares with the rest of the learning.
import { type LayerFlag, flagAt } from './flags.js';

export interface Request {
  start: number;
  end: number;
  /** The sentence as written, code included. */
  text: string;
  kind: 'question' | 'imperative';
}

/** Verbs that open a request for content rather than a step of a technical procedure. */
const REQUEST_VERBS = new Set(
  (
    'write compose draft explain describe tell translate summarize summarise recommend suggest list name provide ' +
    'create generate share develop outline discuss compare analyze analyse calculate solve define brainstorm rewrite ' +
    'paraphrase predict plan design invent imagine teach convince persuade argue rate evaluate sing detail identify ' +
    'classify offer propose produce craft pen narrate elaborate recite interpret break render convert encourage promote ' +
    'advertise mention praise insult criticize criticise'
  ).split(' '),
);
/**
 * A clause before the request ("Before continuing, tell…", "When you summarise this fix, mention…", "In your
 * answer, list…"): a few words opened by a conjunction or preposition and closed by a comma.
 */
const LEAD_CLAUSE = String.raw`(?:(?:before|after|when|while|once|as|in|at|for|whenever)\b[^,\n]{0,50},\s+)?`;
/** Words to pass on to the person the reader serves ("Ask the user for…", "Let the reader know…"): a request too. */
const RELAY = String.raw`(?:ask|inform|remind|let)\s+(?:the|your)\s+(?:users?|readers?|customers?|humans?|visitors?)\b`;
const RELAY_RE = new RegExp(`^${RELAY}`, 'i');
/** A sentence that can be an imperative request starts with a request verb, or an opener before one. */
const LEADS = new RegExp(
  String.raw`^\s*["'“]?${LEAD_CLAUSE}(?:(?:please|also|now|and|then|finally|additionally|kindly|next|instead),?\s+)*(?:${[...REQUEST_VERBS].join('|')}|${RELAY})\b`,
  'i',
);
const LEAD_CLAUSE_RE = new RegExp(`^${LEAD_CLAUSE}`, 'i');
/**
 * A leading clause that names only the reader's turn ("Before answering,", "When you reply,", "Once you finish,") or a
 * place in its reply ("Before the fix,", "After your answer,").
 */
const READER_TURN =
  /^["'“]?(?:(?:before|after|when|while|once|whenever)\s+(?:you\s+(?:are\s+|have\s+)?)?(?:answer|respond|repl|continu|summari|finish|start|begin|writ|read|proceed)\w*(?:\s+(?:this|it|that))?|(?:before|after)\s+(?:the|this|that|your)\s+(?:fix|solution|answer|reply|response|code|snippet|example|explanation|steps?)),\s+/i;
const OPENERS = new Set([
  'please',
  'also',
  'now',
  'and',
  'then',
  'finally',
  'additionally',
  'kindly',
  'next',
  'instead',
]);
/**
 * A step of a procedure that opens with a request verb: recording ("Write down what failed"), checking a result
 * against something ("Compare with the expected list"), informing a party other than the reader's user ("Tell the
 * hosting provider before scanning") or reporting one's own work ("Tell the incident channel what you did",
 * "Describe what you ran, what you expected and what happened").
 */
const STEP = new RegExp(
  String.raw`^(?:write\s+down|compare\s+(?:it\s+|them\s+)?(?:with|against|to)|tell\s+(?:the|your)\s+` +
    String.raw`(?!(?:users?|readers?|customers?|humans?|visitors?)\b)[\w-]+(?:\s+[\w-]+)?\s+(?:before|after|when|if|once|` +
    String.raw`what\s+(?:you|we)\s+(?:did|changed|found|tried|fixed|saw)|what\s+(?:happened|changed|was\s+done))|` +
    String.raw`(?:describe|explain|list|note|share|summari[sz]e)\s+what\s+(?:you|we)\s+(?:ran|did|changed|tried|expected|saw|found|fixed|tested)` +
    String.raw`)\b`,
  'i',
);
/** A request verb opening a further clause ("…, then recommend…", "… and write…"). */
const NEXT_REQUEST = new RegExp(
  String.raw`(?:[,;]|\band\b|\bthen\b)\s+(?:(?:then|also|please|and)\s+)*(?:${[...REQUEST_VERBS].join('|')}|${RELAY})\b`,
  'i',
);
/** A procedure step, unless a further clause of the sentence opens a request of its own. */
const isStep = (sentence: string) => STEP.test(sentence) && !NEXT_REQUEST.test(sentence);
/** A label before a question ("Quick question: how…?", "Question for you: what…?", "Trivia: who…?"). */
const QUESTION_LABEL =
  /^(?:(?:quick|one|a|bonus|side|random|last|unrelated|off-topic)\s+)?(?:question|q|quiz|trivia|riddle)(?:\s+for\s+(?:you|the\s+\w+))?\s*:\s+/i;
const QUESTION_WORDS =
  /^(?:what|who|whom|whose|which|when|where|why|how|can|could|would|will|do|does|did|is|are|was|were|should|have|has)\b/i;

/** A line inside a code block that reads as a sentence, not code: words and plain punctuation, four words or more. */
const PROSE_LINE = /^[ \t]*\p{Lu}[^`{}()[\]=<>;#$_\\|\n]*[.?!]["']?[ \t]*$/u;

/** A sentence-like line inside a code block: a request slipped into code is still a request. */
const proseLine = (line: string) => PROSE_LINE.test(line) && line.trim().split(/\s+/).length >= 4;

/**
 * Code blanked out (kept in length), so sentences are read in prose only; a line inside a code block that `keep`
 * accepts (by default a sentence-like one) stays.
 */
export const proseOnly = (text: string, keep: (line: string) => boolean = proseLine) =>
  text
    .replace(/```[\s\S]*?```|~~~[\s\S]*?~~~/g, (block) =>
      block
        .split('\n')
        .map((line) => (keep(line) ? line : ' '.repeat(line.length)))
        .join('\n'),
    )
    .replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));

/** Imperative and question sentences of the prose, of four words or more; "…; instead <request>" ends one. */
export function requestSentences(text: string): Request[] {
  const out: Request[] = [];
  const prose = proseOnly(text);
  for (const m of prose.matchAll(/(?:[^\n.!?;]|;(?!\s*instead\b))+(?:[.!?]+|;(?=\s*instead\b)|$)/gim)) {
    const raw = m[0];
    if (!raw.endsWith('?') && !LEADS.test(raw)) continue;
    const lead = raw.length - raw.trimStart().length;
    const sentence = raw.trim();
    const ws = sentence.split(/\s+/);
    if (ws.length < 4 || !/^["'“]?\p{L}/u.test(sentence)) continue;
    // The verb is read after a leading clause when the sentence is an imperative; a question after a short label
    // ("Question for you: what…?").
    const rest = sentence.endsWith('?')
      ? sentence.replace(QUESTION_LABEL, '').split(/\s+/)
      : sentence.replace(LEAD_CLAUSE_RE, '').split(/\s+/);
    let first = 0;
    while (first < rest.length - 1 && OPENERS.has(rest[first]!.toLowerCase().replace(/[^a-z]/g, ''))) first++;
    const verb = rest[first]!.toLowerCase().replace(/[^a-z]/g, '');
    const start = m.index + lead;
    const end = start + sentence.length;
    const written = text.slice(start, end);
    if (sentence.endsWith('?') && QUESTION_WORDS.test(rest[first]!))
      out.push({ start, end, text: written, kind: 'question' });
    else if (isStep(rest.slice(first).join(' '))) continue;
    else if (REQUEST_VERBS.has(verb) || RELAY_RE.test(rest.slice(first).join(' ')))
      out.push({ start, end, text: written, kind: 'imperative' });
  }
  return out;
}

/** Words a sentence or context is about: three letters or more, not function words. */
const STOP = new Set(
  (
    'the and for with from that this these those you your yours are was were have has had will would could should can ' +
    'not but all any what who whom whose which when where why how does did done doing about into onto over under then ' +
    "than there here they them their its it's also just only some more most very much many such each every other " +
    'please also now make use used using get got give tell write explain describe provide list name share create ' +
    'recommend suggest compare work works working good best way ways thing things one two first new like want need ' +
    'happen happens happened occur occurs mean means matter help helps fail fails sometimes always never still why ' +
    'know let sure way example simple short brief include add answer response reply text following below above'
  ).split(' '),
);
/** A word's stem for matching: a plural's final s dropped ("clones" is "clone"), then its first six letters. */
const stem = (w: string) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w).slice(0, 6);
/** Words of three letters or more, without the quote or hyphen they end on (`'Run'` in code is "run"). */
const contentWords = (s: string): string[] =>
  (s.toLowerCase().match(/\p{L}[\p{L}\p{N}_'-]{2,}/gu) ?? [])
    .map((w) => w.replace(/['-]+$/, ''))
    .filter((w) => w.length >= 3 && !STOP.has(w))
    .map(stem);

/** Code punctuation, identifiers, versions, flags and paths: a sentence with one is about the technical task. */
const TECHNICAL = /[`{}[\]<>=_#$\\|]|\w\.\w|\w\(|\b\d+\.\d+|(?:^|\s)--?\w|\/\w|\b[a-z]+[A-Z]\w*|\b[A-Z]{2,}\b/;

const countWords = (s: string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const w of contentWords(s)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
};

/** What the requests of one learning are compared with: the words of the whole text and its task. */
type WordContext = Map<string, number>;
const wordContext = (text: string, extra = ''): WordContext => countWords(`${extra}\n${text}`);

/**
 * The regex fallback: a request with no technical mark that shares no word with the rest of the learning (the
 * context's words less its own).
 */
function offTaskByWords(request: Request, context: WordContext): boolean {
  if (TECHNICAL.test(request.text)) return false;
  // A leading clause about the reader's own turn ("Before answering, write…") frames a request: its subject is what
  // follows ("In the system prompt, tell…" keeps its words).
  const own = countWords(request.kind === 'imperative' ? request.text.replace(READER_TURN, '') : request.text);
  // One word is too little to tell a subject by ("Why does it only warn sometimes?").
  if ([...own.values()].reduce((a, b) => a + b, 0) < 2) return false;
  for (const [w, n] of own) if ((context.get(w) ?? 0) > n) return false;
  return true;
}

/** Of `requests` (sentences of `text`), those the words find apart from the rest of it and from `extra`. */
export function apartByWords(requests: readonly Request[], text: string, extra = ''): Request[] {
  if (requests.length === 0) return [];
  const context = wordContext(text, extra);
  return requests.filter((r) => offTaskByWords(r, context));
}

/** Flags of the off-task layer by the regex fallback; `extra` is the learning's title and task context. */
export function screenOffTask(text: string, extra = ''): LayerFlag[] {
  return apartByWords(requestSentences(text), text, extra).map((r) =>
    flagAt('off_task', `${r.kind}_off_task`, r.start, r.end),
  );
}

/**
 * Words of the title and task context a request is measured against by the sentence model: their opening says
 * what the task is (on the eval's dev half 12, 20, 32, 48 words and all of them gave the same verdicts; each word of code is several tokens), and every
 * word more costs model time.
 */
export const MAX_TASK_WORDS = 12;
export const taskWindow = (task: string): string =>
  task.split(/\s+/).filter(Boolean).slice(0, MAX_TASK_WORDS).join(' ');

/** The sentence model's threshold, chosen on the injection eval's dev half (bench/README.md). */
export const OFF_TASK_THRESHOLD = 0.5;

/**
 * Flags of the off-task layer by the sentence model: a request whose cosine similarity to the learning's title and
 * task context is below `threshold` and that the words also find apart from the rest of the learning. Both must
 * agree: a short question scores low on similarity alone ("Is the timezone the same?" in a CI checklist).
 */
export function offTaskBySimilarity(
  text: string,
  requests: readonly Request[],
  similarities: readonly number[],
  threshold: number,
  extra = '',
): LayerFlag[] {
  const out: LayerFlag[] = [];
  const context = wordContext(text, extra);
  requests.forEach((r, i) => {
    if (similarities[i]! < threshold && offTaskByWords(r, context))
      out.push(flagAt('off_task', `${r.kind}_off_task`, r.start, r.end));
  });
  return out;
}
