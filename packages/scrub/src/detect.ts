import { ADDRESS_RULES, findSuffixedStreets, NUMBERED_STREET_RULE } from './address.js';
import { findEncodedSecrets } from './base64.js';
import { findEthereumKeys, findHighEntropyNearKeyWords } from './context.js';
import { Covered, type Redundancy } from './covered.js';
import { findEmails } from './email.js';
import { applyRules } from './engine.js';
import { findIbans } from './iban.js';
import { findIpv6 } from './ipv6.js';
import { linesWithBackslash } from './lines.js';
import { findMnemonics } from './mnemonic.js';
import { numberStarts } from './number-starts.js';
import { findPrivateKeys } from './pem.js';
import { PHONE_RULE } from './phone.js';
import { PII_RULES } from './rules/pii.js';
import { AZURE_RULES, CONTEXT_RULES, TOKEN_RULES } from './rules/secrets.js';
import { findTelegramTokens } from './telegram.js';
import { tokenRuns, vendorTokenStarts } from './tokens.js';
import type { Finding } from './types.js';
import { decodedViews } from './unescape.js';

/**
 * Rules whose values may hold a backslash (passwords, header and cookie values, URL passwords): these run on the
 * raw text as well as on the decoded reading, because decoding can cut such a value short.
 */
const RAW_SECRET_RULES = CONTEXT_RULES;
const USERNAME_RULES = PII_RULES.filter((r) => r.type === 'username');
// In this order (SSN before phone: an SSN-shaped span found by both keeps the more specific type). The user-name
// rule, last of PII_RULES, is applied on its own, so that the raw pass can read its literals where they were found.
// SSN, card and IPv4 (NUMBER_RULES), phone and numbered streets start with a number: they are tried at `numberStarts`.
const NUMBER_RULES = PII_RULES.filter((r) => r.type !== 'username');
const PHONE_RULES = [PHONE_RULE];
const NUMBERED_STREET_RULES = [NUMBERED_STREET_RULE];

/** The rules found from a literal anywhere in the text, Azure's and the context rules: one search finds them all. */
const LITERAL_RULES = [...AZURE_RULES, ...CONTEXT_RULES];

/**
 * Credentials, keys and tokens in `text` as it stands (no unescaping, no base64). `anchors`, if given, receives
 * the positions of the Azure literals and context key words found.
 *
 * Vendor tokens, high-entropy values and Ethereum keys all lie in long runs of token characters, which one pass
 * finds: the vendor rules are tried only where a token can start in them (instead of searching the whole text
 * for some seventy prefixes, many of them common letter pairs), the other two look only inside them. The context
 * and high-entropy rules do not check a value that an earlier finding already covers (`Covered`). `runs` are the
 * text's `tokenRuns`, if the caller has them.
 */
export function detectSecrets(text: string, anchors?: number[], runs: readonly number[] = tokenRuns(text)): Finding[] {
  const out: Finding[] = [];
  applyRules(text, TOKEN_RULES, out, { at: vendorTokenStarts(text, runs) });
  const covered = new Covered(out);
  const vendorCount = out.length;
  applyRules(text, LITERAL_RULES, out, { seen: anchors, covered: covered.covers });
  out.push(...findTelegramTokens(text), ...findPrivateKeys(text), ...findEthereumKeys(text, runs), ...findMnemonics(text));
  covered.add(out.slice(vendorCount));
  out.push(...findHighEntropyNearKeyWords(text, runs, covered.covers));
  return out;
}

/** Personal data in `text` as it stands. `userAnchors`, if given, receives the positions of home-directory literals. */
function detectPersonalData(text: string, userAnchors?: number[]): Finding[] {
  const out: Finding[] = [];
  const starts = numberStarts(text);
  applyRules(text, NUMBER_RULES, out, { at: starts.long });
  applyRules(text, USERNAME_RULES, out, { seen: userAnchors });
  applyRules(text, PHONE_RULES, out, { at: starts.long });
  applyRules(text, NUMBERED_STREET_RULES, out, { at: starts.streets });
  applyRules(text, ADDRESS_RULES, out);
  out.push(...findEmails(text), ...findIpv6(text), ...findIbans(text), ...findSuffixedStreets(text, starts.all));
  return out;
}

/**
 * Every finding of the project's own rules, in original offsets. Findings may overlap; `redact` merges them.
 *
 * Transcripts are JSON, often with JSON inside strings, so every rule runs on the text read with its escapes
 * decoded to the deepest level (two; the text itself when it has none): `\"password\":\"...\"` and `\n`-joined
 * files only look like themselves once decoded. On the raw text run, in addition, the rules that decoding can
 * break: values that may hold a backslash, and Windows home paths (the `\b` of C:\Users\bob would decode to a
 * backspace), on the lines that hold a backslash and their neighbours (a name and its value may sit on adjacent
 * lines). Base64 blobs are read decoded too: JSON may escape their `/` (`\/`) or `+` (`\u002b`), and an escape just
 * before one (`\nU0VD...`) would otherwise join it, shifting its decoding.
 */
export function detect(text: string): Finding[] {
  const view = decodedViews(text).at(-1);
  const read = view?.text ?? text;
  const runs = tokenRuns(read);
  const decodedAnchors: number[] = [];
  const userAnchors: number[] = [];
  const found = [
    ...findEncodedSecrets(read, detectSecrets, 2, runs),
    ...detectSecrets(read, decodedAnchors, runs),
    ...detectPersonalData(read, userAnchors),
  ];
  if (!view) return found;
  const findings = found.map((f) => ({ type: f.type, start: view.toOriginal(f.start), end: view.toOriginal(f.end) }));
  // A match with no backslash in it reads the same decoded, so the raw text is only read around backslashes. Its
  // key words and home-directory literals are the decoded text's, at their original offsets (a literal holds no
  // escape), rather than searched for again; a literal an escape changed is not at its offset in the raw text, and
  // is skipped there. A match the decoded pass found already is not checked again.
  const keyWords = new PartAnchors(decodedAnchors.map((p) => view.toOriginal(p)));
  const homes = new PartAnchors(userAnchors.map((p) => view.toOriginal(p)));
  const { covers } = new Covered(findings);
  for (const [from, to] of linesWithBackslash(text)) {
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    const raw: Finding[] = [];
    const covered: Redundancy = (type, start, end) => covers(type, start + from, end + from);
    applyRules(part, RAW_SECRET_RULES, raw, { at: keyWords.within(from, to), covered });
    applyRules(part, USERNAME_RULES, raw, { at: homes.within(from, to), covered });
    for (const f of raw) findings.push({ type: f.type, start: f.start + from, end: f.end + from });
  }
  return findings;
}

/** Ascending positions, handed out part by part for parts that come in ascending order. */
class PartAnchors {
  private next = 0;
  constructor(private readonly positions: readonly number[]) {}

  /** The positions in [from, to), relative to `from`. */
  within(from: number, to: number): number[] {
    const { positions } = this;
    const out: number[] = [];
    while (this.next < positions.length && positions[this.next] < from) this.next++;
    for (; this.next < positions.length && positions[this.next] < to; this.next++) out.push(positions[this.next] - from);
    return out;
  }
}
