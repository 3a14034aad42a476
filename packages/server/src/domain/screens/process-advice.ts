// Process-advice screen: generic, non-technical advice ("communicate with your team", "stay positive") is not
// operational knowledge. A learning is flagged when it carries such advice and too little technical substance;
// technical learnings that also mention people or process are left alone.
import { type NamedPattern, type ScreenResult, matchingNames } from './result.js';

/** Generic advice phrases; each is a finding name. */
export const ADVICE_PATTERNS: readonly NamedPattern[] = [
  {
    name: 'communication',
    re: new RegExp(
      String.raw`\b(?:communicat\w+\s+(?:clearly|openly|early|often|more|` +
        String.raw`better|regularly|with\s+(?:your|the)\s+(?:team|manager|` +
        String.raw`stakeholders|colleagues|client))|keep\s+(?:everyone|stakeholders|` +
        String.raw`the\s+team|your\s+team|people)\s+(?:informed|in\s+the\s+loop|` +
        String.raw`updated|aligned)|over-?communicat\w+|(?:open|good|better|honest|frequent|regular)\s+communication|` +
        String.raw`clear\s+communication|communication\s+is\s+key)\b`,
      'i',
    ),
  },
  {
    name: 'attitude',
    re: new RegExp(
      String.raw`\b(?:stay|be|remain|keep)\s+(?:positive|calm|patient|` +
        'motivated|focused|humble|curious|optimistic|kind|flexible|' +
        String.raw`open-minded)|\b(?:positive\s+(?:attitude|mindset)|growth\s+mindset|` +
        String.raw`believe\s+in\s+yourself|don'?t\s+give\s+up|never\s+give\s+up|` +
        String.raw`keep\s+(?:going|pushing|learning|at\s+it)|celebrate\s+(?:small\s+)?(?:wins|` +
        String.raw`successes)|learn\s+from\s+(?:your\s+)?mistakes|failure\s+is\s+(?:a|` +
        String.raw`an)\s+\w+|embrace\s+(?:change|failure|the\s+challenge))\b`,
      'i',
    ),
  },
  {
    name: 'wellbeing',
    re: new RegExp(
      String.raw`\b(?:take\s+(?:regular\s+|frequent\s+|short\s+)?breaks?|` +
        String.raw`step\s+away\s+from\s+(?:the|your)\s+(?:screen|keyboard|` +
        String.raw`computer|desk)|get\s+(?:enough|more|some|plenty\s+of)\s+sleep|` +
        String.raw`work-?life\s+balance|self-?care|avoid\s+burn-?out|burn-?out|` +
        String.raw`go\s+for\s+a\s+walk|drink\s+(?:enough\s+)?water|stay\s+hydrated|` +
        String.raw`meditat\w+|mental\s+breaks?|rest\s+well)\b`,
      'i',
    ),
  },
  {
    name: 'teamwork',
    re: new RegExp(
      String.raw`\b(?:teamwork|team\s+spirit|work\s+together|collaborat\w+\s+(?:closely|` +
        String.raw`with\s+(?:your|the)\s+team|is\s+key)|ask\s+(?:for\s+help|` +
        String.raw`your\s+(?:team|colleagues|peers|manager))|help\s+each\s+other|` +
        String.raw`support\s+(?:each\s+other|your\s+team(?:mates)?)|pair\s+up\s+with|` +
        String.raw`build\s+trust|active(?:ly)?\s+listen\w*|empathy|` +
        String.raw`give\s+(?:and\s+receive\s+)?(?:constructive\s+)?feedback|` +
        String.raw`be\s+a\s+team\s+player|respect\s+(?:each\s+other|your\s+colleagues))\b`,
      'i',
    ),
  },
  {
    name: 'productivity',
    re: new RegExp(
      String.raw`\b(?:time\s+management|manage\s+your\s+time|` +
        String.raw`(?:write\s+down|review|set)\s+(?:your\s+)?(?:goals|priorities|objectives)|` +
        String.raw`prioriti[sz]e\s+(?:your\s+)?(?:tasks|` +
        String.raw`work|well)|set\s+(?:clear|realistic|smart)\s+goals|stay\s+organi[sz]ed|` +
        String.raw`break\s+(?:big\s+|large\s+)?(?:tasks|problems|work)\s+(?:down\s+)?into\s+smaller|` +
        String.raw`to-?do\s+lists?|focus\s+on\s+what\s+matters|avoid\s+(?:distractions|` +
        String.raw`multitasking)|plan\s+(?:ahead|your\s+day)|one\s+(?:thing|` +
        String.raw`step)\s+at\s+a\s+time|manage\s+expectations|hold\s+(?:regular|` +
        String.raw`daily|weekly)\s+(?:meetings|stand-?ups|check-?ins|syncs)|document\s+everything)\b`,
      'i',
    ),
  },
  {
    name: 'platitude',
    re: new RegExp(
      String.raw`\b(?:practice\s+makes\s+perfect|there\s+is\s+no\s+silver\s+bullet|` +
        String.raw`it\s+depends\s+on\s+the\s+situation|every\s+(?:project|` +
        String.raw`team|situation)\s+is\s+different|trust\s+the\s+process|` +
        String.raw`the\s+journey|at\s+the\s+end\s+of\s+the\s+day|lesson\s+learned\s+is\s+that\s+(?:communication|` +
        String.raw`patience|teamwork)|patience\s+is\s+(?:key|a\s+virtue)|` +
        String.raw`hard\s+work\s+pays\s+off|soft\s+skills)\b`,
      'i',
    ),
  },
];

/**
 * Technical substance: each match counts once per occurrence. Runs that a pattern scans before the character it
 * needs ('/', '=', ':') are bounded, so a long run without it costs linear time, not quadratic.
 */
const TECHNICAL: readonly RegExp[] = [
  /`[^`\n]+`/g, // inline code
  /```/g, // code fences
  /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g, // ERROR_CODES, ENV_VARS
  /\bv?\d+\.\d+(?:\.\d+)?\b/g, // versions
  /(?:^|\s)--?[a-z][a-z0-9-]+/g, // CLI flags
  /(?:\.{0,2}\/)?[\w.-]{1,64}\/[\w./-]+/g, // paths
  /\b(?:[1-5]\d\d)\b/g, // HTTP status and exit codes
  /\b\w+\(\)/g, // calls
  /\b\w+\.(?:js|ts|py|go|rs|java|json|ya?ml|toml|sql|sh|conf|ini|lock|xml|md)\b/g, // files
  /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, // snake_case identifiers
  /\b[a-z]+[A-Z][A-Za-z0-9]*\b/g, // camelCase identifiers
  /\b[\w.-]{1,64}=[^\s,;]+/g, // assignments: key=value
  /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD)\b/g, // HTTP methods
  /\b[a-z_]\w*(?:\.[a-z_]\w*)+\b/gi, // dotted names: os.scandir, max.poll.interval.ms
  /\b[a-z]{1,64}(?:-[a-z0-9]{1,64}){1,32}:/g, // kebab-case keys: continue-on-error:
  /\b[A-Z]+\d{2,}\b/g, // codes: E0502, HTTP2
  /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|minutes|[kmg]i?b|[kmg]i|%|x|req\/s|rps)(?![\w])/gi, // quantities
  new RegExp(
    String.raw`\b(?:api|http|https|sql|json|yaml|npm|pip|docker|kubernetes|` +
      'k8s|git|ci|cli|ssh|tls|ssl|dns|tcp|udp|regex|cron|env|' +
      'config|cache|timeout|latency|header|endpoint|query|index|' +
      String.raw`schema|migration|container|deploy\w*|build|compiler|runtime|` +
      String.raw`stack\s+trace|exception|thread|mutex|deadlock|memory|` +
      'cpu|disk|port|socket|webhook|oauth|jwt|token|database|' +
      String.raw`postgres\w*|mysql|sqlite|redis|kafka|nginx|node|python|` +
      'rust|java|golang|bash|shell|script|library|package|dependency|' +
      String.raw`version|commit|branch|merge|rebase|pull\s+request|retry|` +
      String.raw`backoff|rate\s+limit|payload|request|response|server|` +
      String.raw`client|proxy|load\s+balancer|queue|worker|process|kernel|` +
      'linux|windows|macos|browser|dom|css|html|function|method|' +
      'class|module|variable|parameter|argument|flag|log|logs|' +
      'metric|alert|dashboard|sdk|library|stdout|stderr|utf-?8|' +
      String.raw`encoding|checksum|hash|install\w*|compil\w*|binary|prebuilt|` +
      String.raw`arm64|x86(?:_64)?|workflow|pipeline|lint\w*|runner|repo(?:sitory)?|` +
      String.raw`github|gitlab|aws|gcp|azure|lambda|s3|ec2|vpc|ci\/cd)\b`,
    'gi',
  ),
];

/** The technical score of a text: matches of the technical patterns per 100 words. */
export function technicalDensity(text: string): number {
  const words = text.match(/\S+/g)?.length ?? 0;
  if (words === 0) return 0;
  const hits = TECHNICAL.reduce((n, re) => n + (text.match(re)?.length ?? 0), 0);
  return (100 * hits) / words;
}

/** Under this many technical matches per 100 words a text with generic advice is flagged. */
export const TECHNICAL_DENSITY_MIN = 8;

/** Words about people, feelings and habits, the vocabulary of advice that names no phrase above. */
const SOFT_WORDS = new RegExp(
  String.raw`\b(?:people|colleagues?|teammates?|team|lead|manager|customers?|communication|communicate|talk|` +
    'listen|trust|kind(?:ness)?|humble|patien(?:t|ce)|rest|hero|all-nighters?|routine|exercise|breakfast|' +
    'healthy|goals?|mentor(?:ing|s)?|juniors?|vision|overwhelmed|stress(?:ed|ful)?|intent|questions|' +
    'afraid|stupid|success|lessons?|skills?|valuable|reward(?:ing)?|motivation|feel(?:ing)?s?|mindset|' +
    'habits?|career|growth|confiden(?:ce|t)|honest(?:ly)?|culture|morale|respect|retrospectives?|' +
    'discussions?|agree|improvement|everyone|nobody|yourself|sleep|senior|roles|careers?|journal|' +
    'meetings?|agenda|politely|thank|disagree|honestly|hiring|attitude|underestimate|learn(?:ing)?|' +
    String.raw`advice|mistakes?|advise|burn(?:ed|t)?\s*out|people's|leaders(?:hip)?|managers|productive|` +
    String.raw`productivity|balance|energy|focus|happy|happiness|mood|tired|weekend|vacation)\b`,
  'gi',
);
/** With no advice phrase, this many distinct soft words under the technical minimum are advice. */
export const SOFT_WORDS_MIN = 3;

/** Distinct soft words in the text, lower-cased. */
export function softWords(text: string): string[] {
  return [...new Set((text.match(SOFT_WORDS) ?? []).map((w) => w.toLowerCase()))];
}

/**
 * Flags generic advice: two or more advice categories, or one category with low technical density (under 8
 * technical matches per 100 words), unless the text is dense in technical detail (three times that); or, with no
 * advice phrase, at least three distinct soft words (people, habits, feelings) at low technical density. Findings
 * are the advice categories (or `generic_advice`), plus `low_technical_content` when density is the reason.
 */
export function screenProcessAdvice(text: string): ScreenResult {
  const visible = text.normalize('NFKC');
  const advice = matchingNames(visible, ADVICE_PATTERNS);
  const density = technicalDensity(visible);
  const low = density < TECHNICAL_DENSITY_MIN;
  if (advice.length === 0) {
    const generic = low && softWords(visible).length >= SOFT_WORDS_MIN;
    return generic
      ? { flagged: true, findings: ['generic_advice', 'low_technical_content'] }
      : { flagged: false, findings: [] };
  }
  const flagged = low || (advice.length >= 2 && density < 3 * TECHNICAL_DENSITY_MIN);
  if (!flagged) return { flagged: false, findings: [] };
  return { flagged: true, findings: low ? [...advice, 'low_technical_content'] : advice };
}
