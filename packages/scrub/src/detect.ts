import { ADDRESS_RULES, findSuffixedStreets, NUMBERED_STREET_RULE } from './address.js';
import { findEncodedSecrets } from './base64.js';
import { findEthereumKeys, findHighEntropyNearKeyWords } from './context.js';
import { Covered, type Redundancy } from './covered.js';
import { findEmails } from './email.js';
import { findIbans } from './iban.js';
import { findIpv6 } from './ipv6.js';
import { linesWithBackslash } from './lines.js';
import { findMnemonics } from './mnemonic.js';
import { findKeyTails, findPrivateKeys } from './pem.js';
import { PHONE_RULE } from './phone.js';
import { PII_RULES } from './rules/pii.js';
import { AZURE_RULES, CONTEXT_RULES, INNER_LITERAL_RULES, TOKEN_RULES } from './rules/secrets.js';
import { type Family, type LiteralsName, Scan } from './scan.js';
import { findTelegramTokens } from './telegram.js';
import type { Finding } from './types.js';
import { decodedViews } from './unescape.js';
import { findWrappedSecrets } from './wrapped.js';

const USERNAME_RULES = PII_RULES.filter((r) => r.type === 'username');
/** SSN, card and IPv4, in this order (SSN before phone: an SSN-shaped span found by both keeps the specific type). */
const NUMBER_RULES = PII_RULES.filter((r) => r.type !== 'username');
const PHONE_RULES = [PHONE_RULE];
const NUMBERED_STREET_RULES = [NUMBERED_STREET_RULE];
/** Azure's rules, tokens found from an inner literal, and the context rules: all start with literals, found in one search. */
const LITERAL_RULES = [...AZURE_RULES, ...INNER_LITERAL_RULES, ...CONTEXT_RULES];

/**
 * Credentials, keys and tokens, in this order: a rule that skips covered values passes over what the families
 * before it found. Vendor tokens, high-entropy values and Ethereum keys all lie in long runs of token characters,
 * which one pass finds: the vendor rules are tried only where a token can start in them, the other two look only
 * inside them.
 */
const SECRET_FAMILIES: readonly Family[] = [
  (s) => s.apply(TOKEN_RULES, { at: s.vendorTokenStarts() }),
  (s) => s.apply(LITERAL_RULES, { literals: 'key words', skipCovered: true }),
  (s) => findTelegramTokens(s.text),
  (s) => {
    const keys = findPrivateKeys(s.text);
    return [...keys, ...findKeyTails(s.text, keys)];
  },
  (s) => findEthereumKeys(s.text, s.tokenRuns()),
  (s) => findMnemonics(s.text),
  (s) => findHighEntropyNearKeyWords(s.text, s.tokenRuns(), s.covers),
];

/** Credentials, keys and tokens in `text` as it stands (no unescaping, no base64). */
const detectSecrets = (text: string): Finding[] => new Scan(text).run(SECRET_FAMILIES);

/** Secrets in base64 blobs, decoded up to two levels deep. */
const ENCODED_FAMILY: Family = (s) => findEncodedSecrets(s.text, detectSecrets, 2, s.tokenRuns());

/**
 * Personal data. SSN, card, IPv4, phone and numbered streets start with a number: they are tried only where one
 * starts. The user-name rule reads home-directory literals, which the raw pass reads again.
 */
const PERSONAL_FAMILIES: readonly Family[] = [
  (s) => s.apply(NUMBER_RULES, { at: s.numberStarts().long }),
  (s) => s.apply(USERNAME_RULES, { literals: 'home directories' }),
  (s) => s.apply(PHONE_RULES, { at: s.numberStarts().long }),
  (s) => s.apply(NUMBERED_STREET_RULES, { at: s.numberStarts().streets }),
  (s) => s.apply(ADDRESS_RULES),
  (s) => findEmails(s.text),
  (s) => findIpv6(s.text),
  (s) => findIbans(s.text),
  (s) => findSuffixedStreets(s.text, s.numberStarts().all),
];

/** Secrets cut in pieces (wrapped onto the next line, or string literals joined), screened put back together. */
const WRAPPED_FAMILY: Family = (s) => findWrappedSecrets(s.text, detectSecrets);

const DECODED_FAMILIES: readonly Family[] = [ENCODED_FAMILY, ...SECRET_FAMILIES, WRAPPED_FAMILY, ...PERSONAL_FAMILIES];

/**
 * The rules that decoding can break, run on the raw text as well: values that may hold a backslash (passwords,
 * header and cookie values, URL passwords), which decoding can cut short, and Windows home paths (the `\b` of
 * C:\Users\bob would decode to a backspace). They read their literals where the decoded pass found them.
 */
const RAW_FAMILIES: readonly Family[] = [
  (s) => s.apply(CONTEXT_RULES, { literals: 'key words', skipCovered: true }),
  (s) => s.apply(USERNAME_RULES, { literals: 'home directories', skipCovered: true }),
];
const RAW_LITERALS: readonly LiteralsName[] = ['key words', 'home directories'];

/**
 * Every finding of the project's own rules, in original offsets. Findings may overlap; `redact` merges them.
 *
 * Transcripts are JSON, often with JSON inside strings, so every rule runs on the text read with its escapes
 * decoded to the deepest level (two; the text itself when it has none): `\"password\":\"...\"` and `\n`-joined
 * files only look like themselves once decoded. The rules that decoding can break (`RAW_FAMILIES`) run on the raw
 * text too, on the lines that hold a backslash and their neighbours (a name and its value may sit on adjacent
 * lines). Base64 blobs are read decoded too: JSON may escape their `/` (`\/`) or `+` (`\u002b`), and an escape just
 * before one (`\nU0VD...`) would otherwise join it, shifting its decoding.
 */
export function detect(text: string): Finding[] {
  const view = decodedViews(text).at(-1);
  const decoded = new Scan(view?.text ?? text);
  const found = decoded.run(DECODED_FAMILIES);
  if (!view) return found;
  const findings = found.map((f) => ({ type: f.type, start: view.toOriginal(f.start), end: view.toOriginal(f.end) }));
  // A match with no backslash in it reads the same decoded, so the raw text is only read around backslashes. Its
  // literals are the decoded text's, at their original offsets (a literal holds no escape), rather than searched
  // for again; a literal an escape changed is not at its offset in the raw text, and is skipped there. A match the
  // decoded pass found already is not checked again.
  const literals = RAW_LITERALS.map((name) => {
    const positions = new PartPositions(decoded.literalPositions(name).map((p) => view.toOriginal(p)));
    return [name, positions] as const;
  });
  const { covers } = new Covered(findings);
  for (const [from, to] of linesWithBackslash(text)) {
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    const coveredBefore: Redundancy = (type, start, end) => covers(type, start + from, end + from);
    const at = new Map(literals.map(([name, positions]) => [name, positions.within(from, to)]));
    for (const f of new Scan(part, coveredBefore, at).run(RAW_FAMILIES)) {
      findings.push({ type: f.type, start: f.start + from, end: f.end + from });
    }
  }
  return findings;
}

/** Ascending positions, handed out part by part for parts that come in ascending order. */
class PartPositions {
  private next = 0;
  constructor(private readonly positions: readonly number[]) {}

  /** The positions in [from, to), relative to `from`. */
  within(from: number, to: number): number[] {
    const { positions } = this;
    const out: number[] = [];
    while (this.next < positions.length && positions[this.next] < from) this.next++;
    for (; this.next < positions.length && positions[this.next] < to; this.next++) {
      out.push(positions[this.next] - from);
    }
    return out;
  }
}
