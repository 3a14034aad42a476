import type { Finding } from './types.js';

// Secrets cut in pieces: a token wrapped onto the next line (a terminal's or an editor's hard wrap, a `\`
// continuation), and a value written as string literals joined by `+` (or set side by side, as Python and C join
// them). A piece alone is often too short for its rule, or only the first piece is found and the others stay.

/** Token characters (base64, base64url, hex, vendor prefixes), and those no word of prose has. */
const TOKEN = /[A-Za-z0-9_+/=.-]/;
const SIGN = /[0-9_+/=-]/;
const MAX_PIECE = 200;

/**
 * Each line that ends in a piece of a token (eight or more token characters, with a digit or a sign no word of
 * prose has, or any before a `\` continuation) and whose next line starts, after its indent, with four or more
 * (an `=` only as base64 padding at its end: `PORT=3000` on the next line of a .env file is a line of its own).
 * Read around each line break only, so the cost is the text's lines.
 */
function* wrappedPairs(text: string): Generator<[Piece, Piece]> {
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    let e = nl;
    if (text[e - 1] === '\r') e--;
    while (text[e - 1] === ' ' || text[e - 1] === '\t') e--;
    const continued = text[e - 1] === '\\';
    if (continued) e--;
    let a = e;
    while (a > 0 && e - a <= MAX_PIECE && TOKEN.test(text[a - 1]!)) a--;
    if (e - a < 8 || e - a > MAX_PIECE) continue;
    const first = text.slice(a, e);
    if (!continued && !SIGN.test(first)) continue;
    let b = nl + 1;
    while (text[b] === ' ' || text[b] === '\t') b++;
    let z = b;
    while (z < text.length && z - b <= MAX_PIECE && TOKEN.test(text[z]!) && text[z] !== '=') z++;
    while (text[z] === '=' && z - b <= MAX_PIECE) z++;
    if (z - b < 4 || z - b > MAX_PIECE || (z < text.length && TOKEN.test(text[z]!))) continue;
    yield [
      { start: a, end: e, text: first },
      { start: b, end: z, text: text.slice(b, z) },
    ];
  }
}

/**
 * Two or more string literals joined by `+`, `.`, `..` or side by side, over at most one line break each (none
 * holding a `[`: a placeholder of an earlier redaction is not a piece). Each run of blanks between two literals has one
 * place in the pattern (after a quote, an operator or a line break), so a long run costs its length, not its square.
 */
const JOINED =
  /(["'])([^"'\n\\[]{1,200})\1(?:[ \t]*(?:(?:\+|\.\.?|\\)[ \t]*)?(?:\r?\n[ \t]*(?:\+[ \t]*)?)?(["'])([^"'\n\\[]{1,200})\3){1,20}/g;
const LITERAL = /(["'])([^"'\n\\[]{1,200})\1/g;

/**
 * Secrets that `detectSecrets` finds only once the pieces are put back together: the pieces joined (with what
 * leads the first literal on its line, so a key word before it counts, and the literal's closing quote) are screened, and a finding that reaches
 * past the first piece covers every piece, from the first's start to the last's end.
 */
export function findWrappedSecrets(text: string, detectSecrets: (text: string) => Finding[]): Finding[] {
  if (!text.includes('\n') && !/["']\s*(?:\+|\.|["'])/.test(text)) return [];
  // Every candidate put back together, one after another with blank lines between, screened in one call.
  const candidates: Candidate[] = [];
  const parts: string[] = [];
  let at = 0;
  const add = (lead: string, pieces: Piece[], close = '') => {
    const joined = lead + pieces.map((p) => p.text).join('') + close;
    candidates.push({
      at,
      lead: lead.length,
      firstEnd: lead.length + pieces[0]!.text.length,
      end: joined.length,
      pieces,
      close,
    });
    parts.push(joined);
    at += joined.length + SEPARATOR.length;
  };
  for (const [a, b] of wrappedPairs(text)) add(lineLead(text, a.start), [a, b]);
  for (const m of text.matchAll(JOINED)) {
    const pieces = [...m[0].matchAll(LITERAL)].map((l) => ({
      start: m.index + l.index + 1,
      end: m.index + l.index + l[0].length - 1,
      text: l[2]!,
    }));
    add(lineLead(text, m.index + 1), pieces, m[1]);
  }
  if (candidates.length === 0) return [];
  const found: Finding[] = [];
  let c = 0;
  for (const f of detectSecrets(parts.join(SEPARATOR)).sort((x, y) => x.start - y.start)) {
    while (c < candidates.length && candidates[c]!.at + candidates[c]!.end <= f.start) c++;
    const k = candidates[c];
    if (!k) break;
    const start = f.start - k.at;
    // Within the pieces (never the lead, which may hold a placeholder) and across the first one's end.
    if (start < k.lead || start >= k.firstEnd || f.end - k.at <= k.firstEnd || f.end - k.at > k.end) continue;
    if (!k.close && BY_CONTEXT.has(f.type)) continue;
    found.push({ type: f.type, start: k.pieces[0]!.start - k.lead + start, end: k.pieces.at(-1)!.end });
  }
  return found;
}

const SEPARATOR = '\n\n\n';

/**
 * Findings of a value by what stands before it, which runs to the next space: across a line break they would take
 * the next line's first word (`DB_PASSWORD=x` then `mail …`). A wrapped secret counts by its shape alone.
 */
const BY_CONTEXT: ReadonlySet<string> = new Set([
  'secret_assignment',
  'authorization_header',
  'basic_auth',
  'bearer_token',
  'url_credentials',
  'high_entropy_secret',
]);

interface Piece {
  start: number;
  end: number;
  text: string;
}

/** A candidate in the joined text: where it starts, its lead's length, where its first piece ends, its length. */
interface Candidate {
  at: number;
  lead: number;
  firstEnd: number;
  end: number;
  pieces: Piece[];
  close: string;
}

/** What stands before `at` on its line (at most 200 characters): a key word there names the value. */
function lineLead(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return text.slice(Math.max(lineStart, at - 200), at);
}
