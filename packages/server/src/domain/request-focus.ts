// The part of a long request that says what is wanted. A forwarded message ("We are a team of five on AWS. Our
// tickets live in Jira. Right now I'm trying to send SMS reminders") holds products and topics that are its context,
// not its need; ranked whole, the context outweighs the need in every ranking. Pure.
import { textWords } from './query-expansion.js';
import { queryTerms } from './query-terms.js';

/** Requests of at most this many words are searched as they are: a short request is its need. */
export const FOCUS_MIN_WORDS = 16;
/** Characters read, at most: the rest of a longer request is searched only when no segment is chosen. */
const MAX_FOCUS_CHARS = 2_000;

/** A label that opens a segment ("Task: …", "Context: …") says what it is. */
const LABEL = /^\s*(?:[-*•]\s*)?([a-z][a-z ]{1,20}?)\s*:\s*/i;
const NEED_LABELS = new Set(['task', 'goal', 'question', 'request', 'need', 'ask', 'query', 'objective', 'problem']);
const CONTEXT_LABELS = new Set([
  'context',
  'background',
  'constraints',
  'constraint',
  'requirements',
  'requirement',
  'note',
  'notes',
  'fyi',
  'details',
  'stack',
  'environment',
  'budget',
  'deadline',
  'ps',
]);

const WANTS = String.raw`(?:need|needs|want|wants|would like|'d like|am looking|'m looking|are looking|'re looking|is looking|am trying|'m trying|are trying|'re trying|is trying|am after|'m after|are after|have to|has to|must)`;
const ASKERS = String.raw`(?:i|we|you|they|he|she|user|users|customer|customers|client|team)`;

/** Phrases by which the asker asks: the segment holding one is the need. */
const STRONG_CUES = new RegExp(
  [
    String.raw`\b${ASKERS}(?:\s+|(?='))(?:really\s+|just\s+|also\s+|still\s+|now\s+|urgently\s+|basically\s+)?${WANTS}\b`,
    String.raw`\bwhat\s+${ASKERS}(?:\s+|(?='))(?:really\s+)?${WANTS}\b`,
    String.raw`^(?:so\s+|basically\s+|now\s+)?(?:need|needs|want|wants|looking for)\b`,
    String.raw`\b(?:looking|searching|hunting)\s+for\b`,
    String.raw`\bhow\s+(?:do|can|could|should|would|might)\s+(?:i|we|you|one|they)\b`,
    String.raw`\b(?:is|are)\s+there\s+(?:a|an|any|some)\b`,
    String.raw`\b(?:can|could|would)\s+you\b`,
    String.raw`\bhelp\s+(?:me|us|them)\b`,
    String.raw`\b(?:find|get|show|give|tell|recommend|suggest)\s+(?:me|us)\b`,
  ].join('|'),
);

/** Phrases that may ask, or may only tell ("the caterer needs a decision"): a need when nothing asks more plainly. */
const WEAK_CUES =
  /\b(?:need|needs|needed|want|wants|wanted|wish)\s+(?:to|a|an|some|something|help)\b|\b(?:trying|try|tried|attempting|hoping|planning)\s+to\b|\b(?:asking|wondering)\b/;

/** "don't want to", "not looking for": a want denied is no need. */
const DENIED =
  /\b(?:don't|do not|doesn't|does not|didn't|did not|won't|will not|wouldn't|would not|never|not|no longer)\s+(?:really\s+|even\s+)?(?:need|needs|needed|want|wants|wanted|looking|trying|have to)\b[^,.;]*/g;

/**
 * Verbs a request opens with when it is an order ("Find a way to…", "Please convert…"). Many are nouns too ("Read
 * and write access both matter"): only one followed by its object's determiner or pronoun asks plainly.
 */
const ORDERS = new RegExp(
  String.raw`^(?:please\s+|just\s+|then\s+|so\s+|now\s+)?(?:` +
    [
      'find',
      'get',
      'send',
      'post',
      'pull',
      'push',
      'convert',
      'translate',
      'generate',
      'create',
      'make',
      'build',
      'track',
      'monitor',
      'scrape',
      'extract',
      'upload',
      'download',
      'search',
      'look up',
      'list',
      'read',
      'write',
      'query',
      'run',
      'deploy',
      'show',
      'compare',
      'book',
      'schedule',
      'fetch',
      'call',
      'analy[sz]e',
      'summari[sz]e',
      'transcribe',
      'remove',
      'resize',
      'compress',
      'merge',
      'detect',
      'identify',
      'verify',
      'validate',
      'check',
      'store',
      'save',
      'sync',
      'back up',
      'automate',
      'publish',
      'share',
      'notify',
      'alert',
      'remind',
      'open',
      'manage',
      'update',
      'import',
      'export',
      'set up',
      'recommend',
      'suggest',
      'give',
      'tell',
      'locate',
      'calculate',
      'estimate',
      'forecast',
      'predict',
      'optimi[sz]e',
      'classify',
      'label',
      'recogni[sz]e',
      'scan',
      'retrieve',
      'collect',
      'gather',
      'connect',
      'integrate',
      'index',
      'watch',
      'order',
      'pay',
      'charge',
      'route',
      'geocode',
    ].join('|') +
    String.raw`)\b`,
);
const ORDER_OBJECT =
  /^\S+(?:\s+(?:up|out))?\s+(?:a|an|the|my|our|your|their|his|her|this|that|these|those|all|every|each|some|any|me|us|it|them|\d)\b/;

/** Openings of a segment that sets the scene: who asks, what they use, what it is for, greetings, apologies. */
const CONTEXT_OPENINGS = new RegExp(
  String.raw`^(?:` +
    [
      String.raw`(?:hey|hi|hello|sorry|thanks|thank you|btw|by the way|for context|fyi|ps)\b`,
      String.raw`(?:i|we)(?:'m|'re| am| are)\s+(?:a|an|the|on|in|not|new|mostly|currently|building|working|using|based|part|running|stuck|getting|kind|pretty|really|very|just|still|also|both|all)\b`,
      String.raw`(?:i|we)\s+(?:run|work|use|have|had|host|deploy|build|built|keep|store|chat|track|write|mostly|already|currently|got|prefer|would prefer|'d prefer|don't|do not|can't|cannot)\b`,
      String.raw`(?:our|my|their|his|her)\b`,
      String.raw`(?:this|it)(?:'s| is| was| will be)\s+(?:for|a|an|the|part|due|urgent|important|not|just|only)\b`,
      String.raw`(?:they|he|she|the user|the customer|the client)\s+(?:said|says|mentioned|mentions|is|are|has|have|uses|use|works|work|prefers|prefer|told|noted|already|runs|run)\b`,
      String.raw`(?:currently|right now we|at the moment|these days|lately|recently|usually|normally)\b`,
      String.raw`(?:ideally|preferably|bonus if|nice to have|it should|it must|it needs to|must|should)\b`,
    ].join('|') +
    ')',
);

/** Words a segment may hold without saying what is wanted ("is there something out there that can help?"). */
const CHATTER = new Set(
  (
    'something anything thing things stuff help helps helped out there recommend recommendation suggest suggestion ' +
    'suggestions recommendations question basically actually really quick maybe perhaps possible possibly thanks ' +
    'thank hey hi hello sorry looking trying try tried hoping planning wondering wonder know think figure anyone ' +
    'somebody someone ideas idea advice options option solution solutions service services api apis app apps'
  ).split(' '),
);

/** How plainly a segment asks: 3 labelled a task, 2 asked or ordered, 1 maybe asked; 0 neither, -1 sets the scene. */
type Level = -1 | 0 | 1 | 2 | 3;

interface Segment {
  text: string;
  level: Level;
  /** Whether it holds a word that can say what is wanted. */
  says: boolean;
}

/**
 * Splits at sentence ends, line breaks, semicolons and labels ("… meeting. Task: …"). A break that starts with a
 * space starts where the run of spaces does (`(?<!\s)`), so each run is tried once, not from each of its spaces.
 */
function segments(text: string): string[] {
  return text
    .slice(0, MAX_FOCUS_CHARS)
    .split(/(?<=[.!?])\s+|(?:(?<!\s)\s+)?[\n;]+\s*|(?<!\s)\s+(?=\b[A-Z][a-z]{2,12}\s*:\s)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Lower case, curly apostrophes straightened, leading punctuation and list marks dropped. */
const normalised = (text: string) =>
  text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/^[^a-z0-9']+/, '');

function levelOf(text: string, label: string | undefined): Level {
  if (label !== undefined && NEED_LABELS.has(label)) return 3;
  if (label !== undefined && CONTEXT_LABELS.has(label)) return -1;
  const lower = normalised(text).replace(DENIED, ' ');
  const order = ORDERS.test(lower);
  if (STRONG_CUES.test(lower) || (order && ORDER_OBJECT.test(lower.replace(/^(?:please|just|then|so|now)\s+/, ''))))
    return 2;
  if (order || WEAK_CUES.test(lower) || /\?\s*$/.test(text)) return 1;
  return CONTEXT_OPENINGS.test(lower) ? -1 : 0;
}

function classify(raw: string): Segment {
  const match = LABEL.exec(raw);
  const name = match?.[1]?.toLowerCase().trim();
  const labelled = name !== undefined && (NEED_LABELS.has(name) || CONTEXT_LABELS.has(name));
  const text = labelled ? raw.slice(match![0].length) : raw;
  return {
    text,
    level: levelOf(text, labelled ? name : undefined),
    says: queryTerms(text).some((w) => !CHATTER.has(w)),
  };
}

/**
 * The need of `text`: a request of more than FOCUS_MIN_WORDS words split into several segments is searched by the
 * segments that ask most plainly (a `Task:` label; an asker's need, a question to the reader or an order; a bare
 * "needs a" or a question mark) and hold a word saying what; failing those, by the segments that neither ask nor set
 * the scene; failing those too, whole. Short requests, and requests of one segment, are returned as they are.
 */
export function requestFocus(text: string): string {
  if (textWords(text.slice(0, MAX_FOCUS_CHARS)).length <= FOCUS_MIN_WORDS) return text;
  const parts = segments(text)
    .map(classify)
    .filter((p) => p.says);
  if (parts.length < 2) return text;
  const top = Math.max(...parts.map((p) => p.level));
  if (top < 0) return text;
  return parts
    .filter((p) => p.level === top)
    .map((p) => p.text)
    .join(' ');
}
