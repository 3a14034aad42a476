// Content-sensitivity screen: health, legal or financial matters about identifiable people, minors, violence.
// Technical text is full of such words about machines ("kill the child process", "health check", "legal
// notice"), so a topic only counts about a person: the topic and a reference to an identifiable person must
// meet in one sentence (or two adjacent ones).
import { type NamedPattern, type ScreenResult, matchingNames } from './result.js';

const NAME = '[A-Z][a-z]+(?:[ -][A-Z][a-z]+)?';
const ROLE_WORDS =
  '(?:employee|customer|client|patient|tenant|colleague|' +
  'co-?worker|manager|boss|neighbou?r|contractor|intern|' +
  'student|teacher|landlord|friend|person|guy|woman|man|' +
  'someone|somebody|applicant|candidate)';
/** Role words match capitalised too ("Employee Sarah Kim"); the name after them must be capitalised. */
const ROLE = ROLE_WORDS.replace(/(?<=[:|])([a-z])/g, (c) => `[${c.toUpperCase()}${c}]`);
const RELATION =
  '(?:wife|husband|partner|spouse|son|daughter|child|kids?|' +
  'mother|mom|mum|father|dad|brother|sister|cousin|uncle|' +
  'aunt|grandma|grandpa|boss|manager|colleague|co-?worker|' +
  'friend|neighbou?r|landlord|ex|client|tenant|employee|' +
  'intern|boyfriend|girlfriend|roommate|teammate|ceo|cfo|' +
  'cto|coo|founder|director|receptionist|secretary|assistant)';

/** References to an identifiable person. */
export const PERSON_PATTERNS: readonly NamedPattern[] = [
  { name: 'honorific_name', re: /\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof)\.?\s+[A-Z][a-z]+/ },
  {
    name: 'role_with_name',
    re: new RegExp(String.raw`\b${ROLE}s?\s+(?:named\s+|called\s+)?${NAME}\b(?!\s*(?:\(|\.\w|::))`),
  },
  { name: 'relation', re: new RegExp(String.raw`\b(?:my|our|his|her|their)\s+(?:\w+\s+)?${RELATION}\b`, 'i') },
  { name: 'possessive_name', re: new RegExp(String.raw`(?<![\w.])${NAME}'s\s+(?!\w+\(|\w+\.)`) },
  { name: 'third_person', re: /\b(?:he|she|him|his|her|hers|herself|himself)\b/i },
  {
    name: 'person_record',
    re: /\b(?:patient\s+(?:id|number|record)s?\s*#?\s*\d|mrn\s*#?\s*\d|employee\s+(?:id|number)\s*#?\s*\d)/i,
  },
];

/** Topics that are sensitive when they concern a person. */
const TOPICS: readonly NamedPattern[] = [
  {
    name: 'health_about_person',
    re: new RegExp(
      String.raw`\b(?:diagnosed\s+with|medical\s+diagnosis|cancer|tumou?r|` +
        'hiv|aids|pregnan(?:t|cy)|miscarriage|depress(?:ion|ed)|' +
        String.raw`anxiety\s+disorder|bipolar|schizophreni\w*|mental\s+(?:health|` +
        String.raw`illness|breakdown)|therap(?:y|ist)|psychiatri\w*|medication|` +
        String.raw`prescri(?:bed|ption)|chemo\w*|illness|disease|surgery|` +
        String.raw`rehab|addiction|alcoholi\w*|disabilit(?:y|ies)|sick\s+leave|` +
        String.raw`medical\s+(?:leave|condition|history|records?)|overdose|` +
        String.raw`suicid\w*|self-harm|hospitali[sz]ed|in\s+(?:the\s+)?hospital|` +
        String.raw`dementia|autis(?:m|tic)|adhd)\b`,
      'i',
    ),
  },
  {
    name: 'legal_about_person',
    re: new RegExp(
      String.raw`\b(?:lawsuit|sued|suing|arrest(?:ed)?|convicted|conviction|` +
        String.raw`criminal\s+record|charged\s+with|indicted|divorc(?:e|` +
        String.raw`ed|ing)|custody\s+(?:battle|dispute|hearing)|probation|` +
        String.raw`parole|dui|restraining\s+order|immigration\s+status|visa\s+status|` +
        String.raw`deport(?:ed|ation)|undocumented\s+(?:immigrant|worker)|` +
        String.raw`(?:in|to|from)\s+(?:jail|prison)|fired\s+for|disciplinary\s+action|harass(?:ed|ment))\b`,
      'i',
    ),
  },
  {
    name: 'identity_documents_about_person',
    re: new RegExp(
      String.raw`\b(?:ssn|social\s+security\s+(?:number|card)|passport\s+(?:number|` +
        String.raw`scan|photo)|date\s+of\s+birth|national\s+id(?:\s+number)?|` +
        String.raw`driver'?s\s+licen[cs]e\s+(?:number|scan|photo))\b`,
      'i',
    ),
  },
  {
    name: 'financial_about_person',
    re: new RegExp(
      String.raw`\b(?:salary|salaries|paycheck|pay\s+stub|(?<!(?:technical|` +
        String.raw`tech|code|design|architectural)\s)debts?|bankrupt(?:cy)?|` +
        String.raw`credit\s+score|mortgage|owes|owed\s+(?:me|us|money)|income|` +
        String.raw`tax\s+returns?|net\s+worth|bank\s+balance|overdrawn|garnish(?:ed|` +
        String.raw`ment)|loan\s+default|in\s+arrears|foreclos\w*|payday\s+loan|gambling\s+debt)\b`,
      'i',
    ),
  },
];

/** Sensitive about anyone, named or not. */
export const STANDALONE_PATTERNS: readonly NamedPattern[] = [
  {
    name: 'minors',
    re: new RegExp(
      String.raw`\b(?:[1-9]|1[0-7])[- ](?:year|yr)s?[- ]olds?\b(?![- ](?:server|` +
        'machine|laptop|macbook|computer|codebase|code|bug|issue|' +
        'ticket|project|app|system|version|library|repo|database|' +
        String.raw`cluster|car|house|framework|stack|install\w*|kernel|distro|` +
        'dependency|package|post|thread|answer|article|blog|question|' +
        String.raw`commit|branch|api|image|container|cert\w*|key|account|` +
        'domain|phone|device|hardware|design|monolith|service|' +
        String.raw`script|config\w*|setup|vm|box|build)\b)|\bunderage\b|` +
        String.raw`\bminors?\s+(?:under|aged|in\s+(?:our|the)\s+care|as\s+young)|` +
        String.raw`\b(?:child|children|kids?|minors?|students?|pupils?)(?:'s|` +
        String.raw`s')?\s+(?:names?|photos?|pictures?|addresses|home\s+address(?:es)?|` +
        String.raw`medical\s+records?|school\s+records?|grades|faces?)\b|` +
        String.raw`\b(?:school|class)\s+(?:kids|children)\b|\bchild\s+(?:abuse|` +
        String.raw`porn\w*|exploitation|custody)\b|\bgrooming\s+(?:a\s+)?(?:child|minor|kid)`,
      'i',
    ),
  },
  {
    name: 'violence',
    re: new RegExp(
      String.raw`\b(?:kill|murder|stab|strangle|beat\s+up|assault|poison)\s+(?:him|` +
        'her|myself|yourself|himself|herself|people|someone|somebody|' +
        String.raw`my\s+(?:wife|husband|boss|neighbou?r|family|parents?|` +
        'mom|dad|mother|father|kids?|son|daughter|teacher|coworkers?|' +
        String.raw`colleagues?)|the\s+(?:police|teacher|neighbou?r|boss|` +
        String.raw`kids|children))\b|\b(?:murder(?:ed|ing)?|rape[ds]?|raping|` +
        String.raw`massacre|mass\s+shooting|school\s+shooting|terroris[tm]\w*|` +
        String.raw`genocide|behead\w*|tortur(?:e|ed|ing)(?!\s+tests?))\b|` +
        String.raw`\b(?:pipe|nail|car|dirty|homemade)\s+bombs?\b|\b(?:build|` +
        String.raw`make|assemble)\s+(?:a\s+)?(?:bomb|explosive\s+device|` +
        String.raw`gun|firearm)\b|\bthreaten(?:ed|ing|s)?\s+to\s+(?:kill|` +
        String.raw`hurt|harm|shoot|stab)\b|\bdomestic\s+(?:violence|abuse)\b`,
      'i',
    ),
  },
];

/** Sentences, split on terminal punctuation and line breaks (code lines become their own sentences). */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);
}

/**
 * Flags a health, legal or financial topic that meets a person reference in one sentence or two adjacent ones
 * (findings `health_about_person`, `legal_about_person`, `financial_about_person`), and minors or violence
 * anywhere (`minors`, `violence`).
 */
export function screenContentSensitivity(text: string): ScreenResult {
  const visible = text.normalize('NFKC');
  const findings: string[] = [];
  const s = sentences(visible);
  for (let i = 0; i < s.length; i++) {
    const window = i + 1 < s.length ? `${s[i]} ${s[i + 1]}` : s[i]!;
    const topics = matchingNames(window, TOPICS).filter((n) => !findings.includes(n));
    if (topics.length === 0) continue;
    // A topic in the first sentence must meet the person in the window; the window slides one sentence on.
    if (matchingNames(window, PERSON_PATTERNS).length > 0) findings.push(...topics);
  }
  for (const n of matchingNames(visible, STANDALONE_PATTERNS)) findings.push(n);
  const order = [...TOPICS, ...STANDALONE_PATTERNS].map((p) => p.name);
  findings.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { flagged: findings.length > 0, findings };
}
