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

/**
 * Common given names, for people named without a role ("Olivia was out after…"). Names that are also common
 * words or technology names (Mark, Grant, Bill, Ruby, Julia, Ray, Max, Will…) are left out on purpose.
 */
const GIVEN_NAMES = (
  'James John Robert Michael David William Richard Joseph Thomas Charles Christopher Daniel Matthew ' +
  'Anthony Donald Steven Paul Andrew Joshua Kenneth Kevin Brian George Timothy Ronald Edward Jason ' +
  'Jeffrey Ryan Jacob Gary Nicholas Eric Jonathan Stephen Larry Justin Scott Brandon Benjamin Samuel ' +
  'Gregory Alexander Patrick Jack Dennis Jerry Tyler Aaron Jose Adam Nathan Henry Zachary Peter Kyle ' +
  'Noah Ethan Jeremy Walter Christian Keith Roger Terry Austin Sean Gerald Carl Dylan Harold Jordan ' +
  'Jesse Bryan Lawrence Arthur Gabriel Bruce Logan Albert Willie Alan Eugene Russell Louis Philip Randy ' +
  'Vincent Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa Nancy Betty ' +
  'Sandra Margaret Ashley Kimberly Emily Donna Michelle Carol Amanda Melissa Deborah Stephanie Rebecca ' +
  'Sharon Laura Cynthia Kathleen Helen Amy Angela Shirley Brenda Emma Anna Pamela Nicole Samantha ' +
  'Katherine Christine Debra Rachel Carolyn Janet Maria Catherine Heather Diane Olivia Julie Joyce ' +
  'Victoria Kelly Christina Lauren Joan Evelyn Judith Megan Andrea Cheryl Hannah Jacqueline Martha ' +
  'Gloria Teresa Sara Madison Kathryn Janice Abigail Sophia Marie Isabella Alice Judy Beverly Denise ' +
  'Danielle Natalie Diana Brittany Charlotte Marilyn Kayla Alexis Lori Ahmed Mohammed Muhammad Ali Omar ' +
  'Fatima Aisha Raj Priya Rahul Amit Anil Sunil Deepak Ananya Wei Ming Hiroshi Yuki Kenji Sakura Olga ' +
  'Ivan Dmitri Sergei Natasha Svetlana Pierre Sophie Hans Klaus Lukas Lena Giulia Marco Luca Alessandro ' +
  'Francesca Carlos Juan Luis Miguel Javier Sofia Lucia Camila Valentina Diego Mateo Pedro Joao Tomasz ' +
  'Katarzyna Piotr Agnieszka Lars Ingrid Sven Astrid Kwame Amara Chinedu Ngozi Tunde Zanele Thabo Ben ' +
  'Tom Sam Alex Chris Nick Dan Mike Steve Dave Joe Jim Tim Kate Liz Jen Meg Beth Ellie Lily Chloe Zoe ' +
  'Mia Ava Ella Leah'
).split(' ');
/** People by group in an organisation: "Kevin in accounting", "Raj, one of the contractors". */
const ORG_GROUP = '(?:accounting|hr|HR|finance|sales|legal|marketing|support|payroll|ops|operations|IT|engineering)';

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
  // Not before code-like continuations: `Sam.run()`, `Ali(`, `Ben: 3`, `Tom = 1`.
  { name: 'given_name', re: new RegExp(String.raw`\b(?:${GIVEN_NAMES.join('|')})\b(?![.(:]\w|\(|\s*=)`) },
  {
    name: 'person_in_group',
    re: new RegExp(String.raw`\b${NAME},?\s+(?:in|from)\s+${ORG_GROUP}\b|\b${NAME},\s+one\s+of\s+(?:the|our|my)\s+\w+`),
  },
  { name: 'person_noun', re: /\b(?:teenager|teen|victim|widow|widower|orphan)s?\b/i },
  {
    name: 'person_record',
    re: /\b(?:patient\s+(?:id|number|record)s?\s*#?\s*\d|mrn\s*#?\s*\d|employee\s+(?:id|number)\s*#?\s*\d)/i,
  },
];

/** A case-insensitive regex matching any of the alternatives as whole words. */
const anyOf = (alternatives: readonly string[]): RegExp =>
  new RegExp(String.raw`\b(?:${alternatives.join('|')})\b`, 'i');

/** Topics that are sensitive when they concern a person. */
const TOPICS: readonly NamedPattern[] = [
  {
    name: 'health_about_person',
    re: anyOf([
      String.raw`diagnosed\s+with`,
      String.raw`medical\s+diagnosis`,
      String.raw`heart\s+attack`,
      'stroke',
      'seizures?',
      'injur(?:y|ies|ed)',
      String.raw`(?:is|was|got|fell)\s+(?:seriously\s+)?(?:sick|ill)`,
      'cancer',
      'tumou?r',
      String.raw`hiv(?:\s+positive)?`,
      'aids',
      'pregnan(?:t|cy)',
      'miscarriage',
      'depress(?:ion|ed)',
      String.raw`anxiety\s+disorder`,
      'bipolar',
      String.raw`schizophreni\w*`,
      String.raw`mental\s+(?:health|illness|breakdown)`,
      'therap(?:y|ist)',
      String.raw`psychiatri\w*`,
      'medication',
      'prescri(?:bed|ption)',
      String.raw`chemo\w*`,
      'illness',
      'disease',
      'surgery',
      'rehab',
      'addiction',
      String.raw`alcoholi\w*`,
      'disabilit(?:y|ies)',
      String.raw`sick\s+leave`,
      String.raw`medical\s+(?:leave|condition|history|records?)`,
      'overdose',
      String.raw`suicid\w*`,
      'self-harm',
      'hospitali[sz]ed',
      String.raw`in\s+(?:the\s+)?hospital`,
      'dementia',
      'autis(?:m|tic)',
      'adhd',
    ]),
  },
  {
    name: 'legal_about_person',
    re: anyOf([
      'lawsuit',
      'sued',
      'suing',
      'arrest(?:ed)?',
      'convicted',
      'conviction',
      String.raw`accused\s+of`,
      String.raw`committed\s+fraud`,
      String.raw`criminal\s+record`,
      String.raw`charged\s+with`,
      'indicted',
      'divorc(?:e|ed|ing)',
      String.raw`custody\s+(?:battle|dispute|hearing)`,
      'probation',
      'parole',
      'dui',
      String.raw`restraining\s+order`,
      String.raw`(?:immigration|visa)\s+status`,
      'deport(?:ed|ation)',
      String.raw`undocumented\s+(?:immigrant|worker)`,
      String.raw`(?:in|to|from)\s+(?:jail|prison)`,
      String.raw`fired\s+for`,
      String.raw`disciplinary\s+action`,
      'harass(?:ed|ment)',
    ]),
  },
  {
    name: 'identity_documents_about_person',
    re: anyOf([
      'ssn',
      String.raw`social\s+security\s+(?:number|card)`,
      String.raw`passport\s+(?:number|scan|photo)`,
      String.raw`date\s+of\s+birth`,
      String.raw`national\s+id(?:\s+number)?`,
      String.raw`driver'?s\s+licen[cs]e\s+(?:number|scan|photo)`,
    ]),
  },
  {
    name: 'financial_about_person',
    re: anyOf([
      'salary',
      'salaries',
      'paycheck',
      String.raw`pay\s+stub`,
      'payslips?',
      String.raw`(?<!(?:technical|tech|code|design|architectural)\s)debts?`,
      'bankrupt(?:cy)?',
      String.raw`credit\s+score`,
      'mortgage',
      'owes',
      String.raw`owed\s+(?:me|us|money)`,
      'income',
      String.raw`tax\s+returns?`,
      String.raw`unpaid\s+(?:taxes|rent|bills|debts?)`,
      String.raw`net\s+worth`,
      String.raw`bank\s+(?:balance|statements?)`,
      'overdrawn',
      'garnish(?:ed|ment)',
      'loans?',
      String.raw`in\s+arrears`,
      String.raw`behind\s+on\s+(?:rent|payments|(?:his|her|their)\s+\w+)`,
      String.raw`foreclos\w*`,
      String.raw`gambling\s+debt`,
      String.raw`child\s+support`,
      'alimony',
    ]),
  },
];

/** Things a technical learning calls "N years old" (its age, not a child's). */
const AGED_THINGS = (
  'server machine laptop macbook computer codebase code bug issue ticket project app system version ' +
  'library repo database cluster car house framework stack install\\w* kernel distro dependency package ' +
  'post thread answer article blog question commit branch api image container cert\\w* key account ' +
  'domain phone device hardware design monolith service script config\\w* setup vm box build'
).split(' ');
const MINOR_NOUNS = '(?:child|children|kids?|minors?|students?|pupils?)';
const PLACES = '(?:workplace|school|office|class(?:room)?|church|mosque|synagogue|mall)';

/** Sensitive about anyone, named or not. */
export const STANDALONE_PATTERNS: readonly NamedPattern[] = [
  {
    name: 'minors',
    re: anyOf([
      String.raw`(?:[1-9]|1[0-7])[- ](?:year|yr)s?[- ]olds?\b(?![- ](?:${AGED_THINGS.join('|')})\b)`,
      'underage',
      String.raw`minors?\s+(?:under|aged|in\s+(?:our|the)\s+care|as\s+young)`,
      String.raw`${MINOR_NOUNS}(?:'s|s')?\s+(?:names?|photos?|pictures?|addresses|home\s+address(?:es)?|` +
        String.raw`medical\s+records?|school\s+records?|grades|faces?)`,
      String.raw`(?:names?|photos?|pictures?|addresses|records|details)\s+of\s+(?:the\s+)?` +
        '(?:kids|children|minors|students|pupils)',
      String.raw`(?:school|class)\s+(?:kids|children)`,
      String.raw`child\s+(?:abuse|porn\w*|exploitation|custody)`,
      String.raw`grooming\s+(?:a\s+)?(?:child|minor|kid)`,
    ]),
  },
  {
    name: 'violence',
    re: anyOf([
      String.raw`(?:kill|murder|stab|strangle|beat\s+up|assault|poison)\s+(?:him|her|myself|yourself|himself|` +
        String.raw`herself|people|someone|somebody|my\s+(?:wife|husband|boss|neighbou?r|family|parents?|mom|dad|` +
        'mother|father|kids?|son|daughter|teacher|coworkers?|colleagues?)|' +
        String.raw`the\s+(?:police|teacher|neighbou?r|boss|kids|children))`,
      'murder(?:ed|ing)?',
      'rape[ds]?',
      'raping',
      'massacre',
      String.raw`(?:mass|school)\s+shooting`,
      String.raw`terroris[tm]\w*`,
      'genocide',
      String.raw`behead\w*`,
      String.raw`tortur(?:e|ed|ing)(?!\s+tests?)`,
      String.raw`(?:pipe|nail|car|dirty|homemade)\s+bombs?`,
      String.raw`(?:build|make|assemble)\s+(?:a\s+)?(?:bomb|explosive\s+device|gun|firearm)`,
      String.raw`threaten(?:ed|ing|s)?\s+to\s+(?:kill|hurt|harm|shoot|stab)`,
      String.raw`domestic\s+(?:violence|abuse)`,
      String.raw`shoot\s+up`,
      String.raw`(?:shoot|bomb|attack|stab)\s+(?:up\s+)?(?:his|her|their|the|a)\s+${PLACES}`,
      String.raw`plans?\s+to\s+(?:kill|shoot|stab|bomb|murder)`,
    ]),
  },
];

/** People, minors and harm named without a pattern above: what else a sensitive sentence is about. */
const PEOPLE_AND_HARM = new RegExp(
  String.raw`\b(?:people|persons?|someone|somebody|caller|customers?|tenants?|drivers?|staff|employees?|workers?|` +
    String.raw`colleagues?|kids?|child(?:ren)?|students?|pupils?|minors?|underage|adults?|boys?|girls?|teens?|son|` +
    String.raw`daughter|parents?|guardians?|famil(?:y|ies)|prisoners?|victims?|\d+[- ]years?[- ]old|aged\s+\d+|bomb\w*|` +
    String.raw`shoot\w*|murder\w*|violen\w+|tortur\w+|terroris\w+|grooming|exploitation|beaten|assault\w*|` +
    String.raw`threaten\w*)\b|\b(?:our|my|their)\s+(?:[\w-]+\s+){0,2}(?:engineer|developer|designer|admin|lead|` +
    String.raw`analyst|hire|nurse|doctor|lawyer|accountant)s?\b`,
  'i',
);

/** People as pronouns, counted in prose only (technical text says "we" and "I" of its procedure). */
const PRONOUN = /\b(?:i|me|my|mine|we|us|our|they|them|their)\b/i;
/** Code, identifiers, paths, versions, flags: the marks of technical text. */
export const TECHNICAL_MARK =
  /`|[{}[\]<>=_#$\\|]|\w\.\w(?<!\b(?:e\.g|i\.e))|\w\(|\b\d+\.\d+|(?:^|\s)--?\w|\/\w|\b[a-z]+[A-Z]\w*/;

/** A role or relation named without a name ("the landlord", "a coworker"). */
const ROLE_OR_RELATION = new RegExp(String.raw`\b(?:${ROLE_WORDS}|${RELATION})s?\b`, 'i');

/**
 * Whether a sentence may concern a person, a minor or violence: a person, role or relation, or a sensitive topic
 * named. These are the sentences the semantic side of this screen reads (the rest cannot be sensitive in its
 * sense, and embedding them is most of a screening's cost).
 */
export const mayConcernPeople = (sentence: string): boolean =>
  PEOPLE_AND_HARM.test(sentence) ||
  ROLE_OR_RELATION.test(sentence) ||
  (PRONOUN.test(sentence) && !TECHNICAL_MARK.test(sentence)) ||
  [...PERSON_PATTERNS, ...STANDALONE_PATTERNS, ...TOPICS].some((p) => p.re.test(sentence));

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
