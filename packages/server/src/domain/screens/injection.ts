// Prompt-injection screen: text that tries to steer the agent that later reads a learning, rather than inform it.
// It runs every layer (each its own module): instructions to the reader, code and commands, off-task requests,
// encoded payloads, plus the markup and hidden-text checks here; each flag names its layer, rule and span.
import { foldText } from '@axle/scrub';
import { screenCode } from './code-commands.js';
import { screenEncoded } from './encoded.js';
import { type LayerFlag, flagAt } from './flags.js';
import { screenOffTask } from './off-task.js';
import { screenReaderInstructions } from './reader-instructions.js';
import type { NamedPattern, ScreenResult } from './result.js';
import { READER_CUES_OTHER_LANGUAGES } from './tool-poisoning-languages.js';

/** Words that name an instruction channel an attacker wants discarded. */
const INSTRUCTIONS =
  '(?:instructions?|prompts?|directions|directives|guidelines|guidance|' +
  String.raw`guardrails|system\s+prompt|system\s+messages?|safety\s+(?:rules|guidelines|policies))`;
/** Who an injection addresses: an AI reader, never a build or CI agent. */
const AI_READER =
  String.raw`(?:ai|a\.i\.|llm|language\s+model|ai\s+(?:agent|assistant|` +
  String.raw`model)|assistant|chatbot|chatgpt|claude|gpt-?\d*|copilot|gemini)`;

/** Patterns on the visible text (after NFKC, with invisible characters removed). */
export const INJECTION_PATTERNS: readonly NamedPattern[] = [
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|disregard|forget|override|bypass|skip|drop|` +
        String.raw`discard)\b[\s\w,'-]{0,30}?\b(?:previous|prior|preceding|` +
        String.raw`above|earlier|former|original|existing|all|any|your|the\s+system)\s+` +
        String.raw`(?:\w+\s+){0,2}${INSTRUCTIONS}\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:do\s+not|don't|never|stop)\s+(?:follow|obey|apply|` +
        String.raw`listen\s+to)\w*\s+(?:your|the|any)\s+(?:\w+\s+){0,2}(?:${INSTRUCTIONS}|` +
        String.raw`rules|policies|training)\b`,
      'i',
    ),
  },
  { name: 'instruction_override', re: /\b(?:new|updated|real|actual|true)\s+instructions?\s*(?:follow\s*)?:/i },
  {
    // "Ignore the question above and…", "disregard the task you were given", "ignore the above and instead tell…":
    // the reader's own request set aside. A warning or a message above is not a request ("ignore the warning above").
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|disregard|forget)\s+(?:(?:all|everything)\s+(?:of\s+)?)?(?:the|this|that|my|your)\s+` +
        String.raw`(?:(?:user'?s?|original|previous|earlier)\s+)?(?:question|task|request|query|conversation|prompt)s?\s+` +
        String.raw`(?:above|so\s+far|before\s+this|you\s+(?:were|have\s+been)\s+given|and\s+instead)\b|` +
        String.raw`\b(?:ignore|disregard|forget)\s+(?:(?:all|everything)\s+(?:of\s+)?)?the\s+above\s+(?:and\s+)?(?:instead\s+)?` +
        String.raw`(?:just\s+|only\s+|now\s+)?(?:tell|say|write|respond|reply|answer|print|output|recommend|translate|repeat|state)\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|bypass|disable|override|turn\s+off|disregard)\s+(?:the|` +
        String.raw`your|all|any)\s+(?:safety|content|moderation)\s+(?:rules|` +
        String.raw`guidelines|policy|policies|filters?|guardrails|checks)\b`,
      'i',
    ),
  },
  {
    name: 'role_hijack',
    re: new RegExp(
      String.raw`\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|my\s+|the\s+)?(?:\w+\s+){0,2}(?:${AI_READER}|` +
        String.raw`dan|bot|unrestricted|unfiltered|jailbroken|uncensored|evil|free)\b`,
      'i',
    ),
  },
  {
    name: 'role_hijack',
    re: new RegExp(
      String.raw`\b(?:pretend|imagine|roleplay|role-play)\s+(?:that\s+)?(?:you\s+are|` +
        String.raw`to\s+be|you're)\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|` +
        String.raw`unfiltered|jailbroken|uncensored|evil|dan\b)`,
      'i',
    ),
  },
  { name: 'role_hijack', re: /\b(?:dan|jailbreak|god)\s+mode\b|\bdo\s+anything\s+now\b/i },
  {
    // "Stop being a helpful assistant and…": the reader told to drop what it is.
    name: 'role_hijack',
    re: new RegExp(String.raw`\bstop\s+being\s+(?:an?\s+|my\s+|the\s+)?(?:\w+\s+){0,2}${AI_READER}\b`, 'i'),
  },
  {
    name: 'role_hijack',
    re: /\b(?:from\s+(?:now|this\s+(?:point|moment)|the\s+next\s+(?:message|reply|turn|answer|response))\s+on(?:wards?)?|henceforth|starting\s+now),?\s+you\s+(?:are|will\s+be|shall\s+be|will\s+act\s+as|will\s+play)\s+(?:an?|my|the|\w+bot)\b/i,
  },
  {
    name: 'role_hijack',
    re: new RegExp(
      String.raw`\bfrom\s+now\s+on,?\s+(?:you|your\s+(?:answers?|responses?|` +
        String.raw`replies|output))\b[^.\n]{0,40}\b(?:respond|answer|reply|speak|talk|` +
        String.raw`act|behave|obey|pretend|only\s+(?:output|say|reply)|say)\b`,
      'i',
    ),
  },
  {
    name: 'addressed_to_ai',
    re: new RegExp(
      String.raw`\b(?:if\s+you\s+are|as)\s+an?\s+${AI_READER}\s+(?:reading|` +
        String.raw`processing|summari[sz]ing|seeing|parsing)\b|\b(?:attention|` +
        String.raw`note\s+to|message\s+(?:to|for)|instructions?\s+for|dear|` +
        String.raw`hey)\s+(?:the\s+|all\s+|any\s+)?${AI_READER}s?\b`,
      'i',
    ),
  },
  {
    name: 'prompt_leak',
    re: new RegExp(
      String.raw`\b(?:reveal|print|repeat|output|show|leak|dump|disclose)\s+(?:me\s+)?(?:your|` +
        String.raw`the)\s+(?:\w+\s+)?(?:system\s+prompt|hidden\s+instructions|` +
        String.raw`initial\s+instructions|instructions\s+above|text\s+above|words\s+above)\b|` +
        String.raw`\b(?:reveal|print|repeat|output|show|leak|dump|disclose)\s+(?:me\s+)?(?:all\s+)?(?:your|the)\s+(?:\w+\s+)?` +
        String.raw`(?:instructions|prompt|rules|guidelines)\s+(?:that\s+)?you\s+(?:were|have\s+been)\s+(?:given|told)\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|forget|disregard|drop|abandon|discard|override|bypass|set\s+aside)\b[^.!?\n]{0,40}` +
        String.raw`\b(?:everything|anything|whatever)\s+(?:above|before|earlier|previously|` +
        String.raw`you\s+(?:were|have\s+been)\s+(?:told|given|instructed))`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|forget|disregard|discard|override|bypass)\s+(?:all\s+)?(?:the|your|any)\s+(?:\w+\s+)?` +
        String.raw`${INSTRUCTIONS}\s+(?:that\s+)?you\s+(?:were|have\s+been|got|received)\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:whatever|everything|anything)\s+you\s+(?:were|have\s+been)\s+(?:told|given|instructed)\b` +
        String.raw`[^.!?\n]{0,40}\b(?:no\s+longer|doesn't|does\s+not|is\s+void|is\s+cancell?ed)`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|forget|disregard|drop|abandon|discard|override|bypass)\s+` +
        String.raw`(?:your|all(?:\s+(?:of\s+)?your)?|any|previous|prior|earlier)\s+(?:\w+\s+)?` +
        String.raw`(?:constraints|restrictions|safeguards|guardrails|limitations|programming|conditioning|alignment)\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:safeguards|guardrails|safety\s+(?:checks|filters|measures)|content\s+polic(?:y|ies))\s+` +
        String.raw`(?:are|have\s+been)\s+(?:now\s+)?(?:disabled|off|lifted|removed|suspended|deactivated)|` +
        String.raw`\bsystem\s+override\b|\boverride\s+(?:engaged|activated|mode\s+on)\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\btakes?\s+(?:priority|precedence)\s+over\s+(?:anything|everything|all|any)\b[^.!?\n]{0,40}` +
        String.raw`\b(?:said|told|instructions?|prompts?|developer|operator|system)\b|` +
        String.raw`\bsupersedes?\s+(?:all|any|every|your)\s+(?:other\s+|previous\s+|prior\s+)?` +
        String.raw`(?:instructions?|rules|prompts?|guidance)\b`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:ignore|disregard|bypass)\b[^.!?\n]{0,40}\bsafety\s+` +
        '(?:notes|warnings|instructions|rules|guidelines|policies)\\b',
      'i',
    ),
  },
  {
    name: 'role_hijack',
    re: new RegExp(
      String.raw`\b(?:ai|assistant|model|chatbot|bot|agent)\s+(?:without|with\s+no)\s+(?:any\s+)?` +
        String.raw`(?:restrictions|limits|rules|filters|guidelines|constraints|ethics)\b|` +
        String.raw`\byou(?:'re|\s+are)\s+(?:now\s+)?(?:an?\s+)?(?:\w+\s+){0,2}(?:agent|assistant|ai|model|bot)\s+` +
        String.raw`with\s+(?:root|admin|full|unlimited|god)`,
      'i',
    ),
  },
  {
    name: 'tool_coercion',
    re: /\b(?:you\s+must|immediately)\b[^.!?\n]{0,30}\b(?:call|invoke|trigger|execute)\s+the\s+[\w-]+\s+tool\b/i,
  },
  {
    name: 'addressed_to_ai',
    re: new RegExp(
      String.raw`\bas\s+the\s+(?:reader|recipient)\s+of\s+this\b|` +
        String.raw`^[^\S\n\r\u2028\u2029]*(?:assistant|ai|agent|model|claude|chatgpt|gpt)\s*,` +
        String.raw`\s+(?:when|please|you|before|after|now)\b`,
      'im',
    ),
  },
  {
    name: 'url_placeholder_exfiltration',
    re: new RegExp(
      String.raw`https?:\/\/\S*[?&][\w-]+=\{\{?\s*` +
        String.raw`(?:user\w*|email|secret\w*|token|api_?key|password|history|conversation|chat|prompt|` +
        String.raw`session\w*|cookie|env\w*)`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\b(?:content|safety|moderation)\s+filters?\s*[:=]?\s*(?:off|disabled|none|false)\b|` +
        String.raw`\b(?:overrides?|supersedes?|replaces?)\s+(?:the\s+|your\s+|any\s+)?` +
        String.raw`(?:operator|system|developer|safety|user)\s+(?:configuration|config|settings|instructions|prompt|` +
        String.raw`policy|rules)\b[^.!?\n]{0,60}\b(?:allow|permit|enable|without|skip|disable)`,
      'i',
    ),
  },
  {
    name: 'instruction_override',
    re: new RegExp(
      String.raw`\btreat\s+(?:everything|anything|all\s+(?:text|content))\s+(?:after|below|following)\s+` +
        String.raw`(?:this|here)[^.!?\n]{0,40}\bas\s+(?:a\s+)?(?:command|instruction|order)s?\b|` +
        String.raw`\b(?:command|instruction|order)s?\s+from\s+your\s+` +
        '(?:administrator|admin|operator|developer|owner|creator|master)\\b',
      'i',
    ),
  },
  {
    name: 'role_hijack',
    re: new RegExp(
      String.raw`\byour\s+(?:real|true|actual|new|only|primary|secret)\s+` +
        String.raw`(?:purpose|goal|task|mission|objective|job)\s+` +
        String.raw`(?:is|are|now)\b|\bregardless\s+of\s+(?:the\s+)?(?:question|user|request|prompt|` +
        String.raw`what\s+(?:the\s+user|you\s+are|you're)\s+asked)`,
      'i',
    ),
  },
  {
    name: 'addressed_to_ai',
    re: new RegExp(
      String.raw`\b(?:the|any|every|an?)\s+(?:automated\s+)?(?:model|ai|llm|assistant|agent)s?\s+` +
        String.raw`(?:reading|processing|parsing|summari[sz]ing|that\s+reads|who\s+reads)\s+(?:this|these)\b|` +
        String.raw`\bfor\s+(?:any|all|every)\s+(?:automated\s+)?(?:ai\s+)?(?:assistants?|agents?|models?|llms?)\b`,
      'i',
    ),
  },
  {
    name: 'concealment',
    re: new RegExp(
      String.raw`\b(?:never|don't|do\s+not)\s+(?:mention|reveal|disclose|acknowledge)\s+(?:this|these|that)\s+` +
        String.raw`(?:note|message|instruction|text|line)s?\b|` +
        String.raw`\bsilently\s+(?:email|send|upload|forward|post|copy|delete|run|execute|install)\b|` +
        String.raw`\bhidden\s+(?:note|instruction|message)s?\s*:`,
      'i',
    ),
  },
  {
    name: 'data_exfiltration_instruction',
    re: new RegExp(
      String.raw`\b(?:email|send|upload|post|forward|paste|copy)\b[^.!?\n]{0,40}` +
        String.raw`(?:~\/\.(?:aws|ssh|config|docker|kube|npmrc|netrc|gnupg)|\.env\b|id_rsa|id_ed25519|` +
        String.raw`credentials\s+file|private\s+keys?)[^.!?\n]{0,40}\b(?:to|at)\s+(?:\S+@\S+|https?:\/\/)`,
      'i',
    ),
  },
  {
    name: 'concealment',
    re: new RegExp(
      String.raw`\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this|` +
        String.raw`it)\s+to|reveal\s+(?:this|it)\s+to|alert|notify)\s+(?:the\s+)?(?:user|` +
        String.raw`human|operator|developer)\b|\bwithout\s+(?:telling|informing|` +
        String.raw`alerting|notifying)\s+(?:the\s+)?(?:user|human|operator)\b`,
      'i',
    ),
  },
  {
    name: 'fake_system_message',
    re: new RegExp(
      String.raw`<\|(?:im_start|im_end|system|user|assistant|endoftext|` +
        String.raw`eot_id|start_header_id|end_header_id)\|>|\[\/?INST\]|<<\/?SYS>>`,
      'i',
    ),
  },
  {
    name: 'fake_system_message',
    re: new RegExp(
      String.raw`<\/?(?:system|assistant|user|tool|tool_call|tool_result|` +
        'tool_response|function_call|function_results?|instructions?|admin)>',
      'i',
    ),
  },
  { name: 'fake_system_message', re: /^[ \t>]*#{1,6}[ \t]*(?:system|assistant|user|instructions?|tool)[ \t]*:/im },
  {
    name: 'fake_system_message',
    re: new RegExp(
      String.raw`^[ \t>]*(?:system|assistant|instructions?|tool|admin)[ \t]*(?:message|` +
        String.raw`prompt|output|note)?[ \t]*:[ \t]*(?:you\b|your\b|ignore|` +
        String.raw`disregard|always|never|do\s+not|don't|from\s+now|the\s+(?:user|` +
        String.raw`assistant|ai)|respond|reply|new\s+instructions|override|forget)`,
      'im',
    ),
  },
  {
    name: 'fake_system_message',
    re: /^[ \t>]*assistant[ \t]*:[ \t]*(?:sure|certainly|of\s+course|okay|ok\b|as\s+an\s+ai)/im,
  },
  {
    name: 'data_exfiltration_instruction',
    re: new RegExp(
      String.raw`\b(?:send|post|upload|forward|transmit|exfiltrate|append|` +
        String.raw`encode|include)\b[^.\n]{0,60}\b(?:conversation|chat\s+history|` +
        String.raw`system\s+prompt|previous\s+messages|user'?s?\s+(?:data|` +
        String.raw`messages|files|secrets)|all\s+(?:the\s+)?secrets|environment\s+variables|` +
        String.raw`contents\s+of\s+(?:~\/)?\.env)\b[^.\n]{0,60}(?:https?:\/\/|` +
        String.raw`\b(?:to|into)\s+(?:the\s+)?(?:url|link|image|query|webhook))`,
      'i',
    ),
  },
];

/** Markdown and HTML patterns that leak data through a URL the reader's client fetches, or run script. */
const EXFIL_PARAM = new RegExp(
  '[?&](?:q|d|p|data|payload|secret|token|key|api_?key|pw|' +
    'pass|password|conv|conversation|chat|history|prompt|msg|' +
    'message|content|info|text|leak|exfil|c|s|x)=',
  'i',
);
const PLACEHOLDER = /\{[^}]*\}|\$\{?\w+|%7B|<[A-Z_]{2,}>|\[[A-Z][A-Z_ ]{2,}\]|\[(?:data|secret|info)\]/i;
const LONG_VALUE = /=[A-Za-z0-9+/_%-]{40,}/;
const EMPTY_EXFIL_PARAM = new RegExp(`${EXFIL_PARAM.source}(?:&|$)`, 'i');

/**
 * A URL the reader is meant to fill in (a placeholder, or a data-named parameter left empty), or one already
 * carrying a long encoded value in a data-named parameter. Static short parameters (badges) are fine.
 */
function suspiciousUrl(url: string): boolean {
  if (PLACEHOLDER.test(url)) return true;
  if (!EXFIL_PARAM.test(url)) return false;
  return LONG_VALUE.test(url) || EMPTY_EXFIL_PARAM.test(url);
}

// Each pattern's scan stops where another match could start (a line break, '[', '<'), so a text of many
// unclosed openers costs linear time rather than a scan to its end from every opener.
function markupFlags(text: string): LayerFlag[] {
  const out: LayerFlag[] = [];
  const at = (rule: string, m: RegExpMatchArray) => out.push(flagAt('markup', rule, m.index!, m.index! + m[0].length));
  const images = [
    ...text.matchAll(/!\[[^[\]\n]*\]\(\s*<?(https?:\/\/[^)\s>]+)/gi),
    ...text.matchAll(/<img\b[^<>]*\bsrc\s*=\s*["']?(https?:\/\/[^"'\s>]+)/gi),
    ...text.matchAll(/^[^\S\n\r\u2028\u2029]*\[[^[\]\n]+\]:\s*<?(https?:\/\/\S+)/gim),
  ];
  const image = images.find((m) => suspiciousUrl(m[1]!));
  if (image) at('markdown_image_exfiltration', image);
  const link = [...text.matchAll(/\[[^[\]\n]*\]\(\s*<?(https?:\/\/[^)\s>]+)/gi)].find((m) => PLACEHOLDER.test(m[1]!));
  if (link) at('markdown_link_exfiltration', link);
  const scheme = text.match(
    /\]\(\s*<?\s*(?:javascript|vbscript|data):|<a\b[^<>]*\bhref\s*=\s*["']?\s*(?:javascript|vbscript|data):/i,
  );
  if (scheme) at('dangerous_link_scheme', scheme);
  return out;
}

/**
 * The markers every surface frames a learning's body in (`untrustedContent` in @axle/sdk), read folded (case,
 * spacing, look-alike letters): a body that writes one pretends its frame ended, or a new one began.
 */
const FRAME_MARKER = /<{2,}\s*(?:end[\s_-]*)?untrusted[\s_-]*content|(?:end_)?untrusted_content\b/;

function frameMarkerFlags(text: string): LayerFlag[] {
  const folded = foldText(text);
  const m = folded.text.match(FRAME_MARKER);
  if (!m) return [];
  const start = folded.toOriginal(m.index!);
  return [flagAt('markup', 'delivery_frame_marker', start, folded.toOriginal(m.index! + m[0].length))];
}

/** Unicode tag characters: invisible, and they spell ASCII that models read. */
const TAG_CHARS = /[\u{E0000}-\u{E007F}]/u;
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
/**
 * Two or more variation selectors in a row: one after a character picks an emoji or CJK variant, a run of them is
 * bytes hidden after it (one selector a byte), which a model can be asked to read.
 */
const VARIATION_SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}/u;

/**
 * Where the first zero-width character outside its legitimate uses sits (ZWJ in emoji sequences, ZWNJ in non-Latin
 * scripts, a BOM), if any.
 */
function strayZeroWidth(text: string): number | undefined {
  for (const m of text.matchAll(
    /[\u200B-\u200D\u2060-\u2064\u180E\uFEFF\u115F\u1160\u3164\uFFA0\u17B4\u17B5]|\u034F/gu,
  )) {
    const i = m.index;
    const c = m[0];
    if (c === '\uFEFF' && i === 0) continue;
    const before = text.slice(Math.max(0, i - 2), i);
    const after = text.slice(i + 1, i + 3);
    if (c === '\u200D' && /\p{Extended_Pictographic}|\uFE0F|[\u{1F3FB}-\u{1F3FF}]/u.test(before + after)) continue;
    if ((c === '\u200C' || c === '\u200D') && /[^\p{ASCII}]/u.test(before.slice(-1) + after.slice(0, 1))) continue;
    return i;
  }
  return undefined;
}

/** ASCII spelt in tag characters (U+E0020..U+E007E), which some models read as text. */
export function decodeTagCharacters(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCodePoint(cp - 0xe0000);
  }
  return out;
}

/** Hidden Unicode: tag characters, stray zero-width characters, bidi controls, runs of variation selectors. */
function hiddenTextFlags(text: string): LayerFlag[] {
  const out: LayerFlag[] = [];
  const tag = text.match(TAG_CHARS);
  if (tag) out.push(flagAt('hidden_text', 'hidden_tag_characters', tag.index!, tag.index! + tag[0].length));
  const zw = strayZeroWidth(text);
  if (zw !== undefined) out.push(flagAt('hidden_text', 'zero_width_characters', zw, zw + 1));
  const bidi = text.match(BIDI_CONTROLS);
  if (bidi) out.push(flagAt('hidden_text', 'bidi_control_characters', bidi.index!, bidi.index! + 1));
  const run = text.match(VARIATION_SELECTOR_RUN);
  if (run) out.push(flagAt('hidden_text', 'variation_selector_run', run.index!, run.index! + run[0].length));
  return out;
}

/**
 * The instruction patterns above and the reader cues of other languages (tool-poisoning-languages.ts), over the
 * folded text, each name once, at its first match.
 */
function patternFlags(text: string): LayerFlag[] {
  const folded = foldText(text);
  const out: LayerFlag[] = [];
  for (const p of [...INJECTION_PATTERNS, ...READER_CUES_OTHER_LANGUAGES]) {
    if (out.some((f) => f.rule === p.name)) continue;
    const m = folded.text.match(p.re);
    if (m)
      out.push(flagAt('instructions', p.name, folded.toOriginal(m.index!), folded.toOriginal(m.index! + m[0].length)));
  }
  return out;
}

/** Levels of encoding (and hidden tag text) looked through. */
const MAX_DEPTH = 2;

export interface InjectionOptions {
  /** The learning's title and task context: what an off-task request is measured against. */
  context?: string;
  /** The off-task layer's flags from the sentence model; absent, its regex fallback runs. */
  offTask?: readonly LayerFlag[];
}

/** Every layer's flags over `text`, in layer order. */
export function injectionFlags(text: string, options: InjectionOptions = {}, depth = 0): LayerFlag[] {
  const flags: LayerFlag[] = [
    ...hiddenTextFlags(text),
    ...patternFlags(text),
    ...screenReaderInstructions(text, options.context),
    ...markupFlags(text),
    ...frameMarkerFlags(text),
    ...screenCode(text, options.context),
    ...(options.offTask ?? screenOffTask(text, options.context)),
  ];
  if (depth < MAX_DEPTH) {
    const inner = (decoded: string, d: number) => injectionFlags(decoded, { context: options.context }, d);
    flags.push(...screenEncoded(text, inner, depth));
    const hidden = decodeTagCharacters(text);
    if (hidden.length > 0) {
      const tag = text.match(TAG_CHARS)!;
      for (const f of inner(hidden, depth + 1))
        flags.push(
          flagAt('hidden_text', `tag_characters:${f.layer}.${f.rule}`, tag.index!, tag.index! + tag[0].length),
        );
    }
  }
  return flags;
}

/**
 * The injection screen over one text: held when any layer flags. `findings` are the rule names, each once, in
 * layer order (the corpora and `npm run eval` read them); `flags` carry layer, rule and span.
 */
export function screenInjection(text: string, options: InjectionOptions = {}): ScreenResult & { flags: LayerFlag[] } {
  const flags = injectionFlags(text, options);
  const findings = [...new Set(flags.map((f) => f.rule))];
  return { flagged: flags.length > 0, findings, flags };
}
