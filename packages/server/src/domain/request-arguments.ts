// The values a tool-use request passes to the operation it asks for: a title in quotes, a link, an email address, an
// id such as `cus_Q8x2` or `session:4711`, a phone number, an IP address, a JSON object, what a picture to be made
// shows, a city ("in Lisbon"; a country or region often scopes a regional API, so those stay). They say which item,
// not which tool ("open a pull request titled \"Fix login redirect\"" matched sign-in services on `login`). Pure;
// every pattern is bounded or anchored to one word, so a request is read in time linear in its length.
import { PACKAGING } from './near-duplicates.js';
import { CITY_WORDS } from './place-names.js';
import { contentWordCount } from './query-terms.js';

/** Values that span words: a `{…}` object, a phone or parcel number of 7 or more digits. */
const SPANS = /\{[^{}]{0,200}\}|\+?\d(?:[\s.-]?\d){6,}/gu;
/**
 * What a picture to be made shows, to the sentence's end: the prompt passed to the generator ("generate an image of a
 * cat wearing a hard hat" matched cat-photo APIs on `cat`). Only after a verb of making: "show me a picture of a cat"
 * asks for a photo of one.
 */
const PICTURED =
  /\b((?:generate|create|make|draw|paint|render|design|produce)(?:\s+(?!of\b)[\p{L}\d-]+){0,3}?\s+(?:images?|pictures?|photos?|illustrations?|drawings?|paintings?|artworks?|portraits?|wallpapers?|avatars?|icons?|logos?))\s+(?:of|showing|depicting)\s[^.?!;]{1,200}/giu;
/**
 * A quoted string: a value, or the very thing searched for ("an API for \"text to speech\""). Single quotes count
 * when no letter or digit touches them outside ("the word 'rizz'"), so an apostrophe (`what's`, `users'`) opens none.
 */
const QUOTED = /"[^"]{1,80}"|“[^”]{1,80}”|‘[^’]{1,80}’|(?<![\p{L}\p{N}])'[^'\n]{1,80}'(?![\p{L}\p{N}])/gu;
/**
 * Content words (not stopwords, not packaging such as `api` or `server`) a request keeps without its quoted strings
 * for them to be values: an operation and what it acts on ("open a pull request titled …").
 */
const MIN_WORDS_BESIDE_QUOTES = 2;
const LINK = /^(?:https?:\/\/|www\.)/i;
const HOST = /^[\w-]+(?:\.[\w-]+)+$/;
const EMAIL = /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/;
const IP = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** Characters a word may end on that belong to the sentence, not to the value. */
const TRAILING = new Set([',', '.', ';', ':', '!', '?', ')']);

/**
 * Whether a word (between blanks, less TRAILING) is a value: a link with a scheme or `www.`, a host with a path
 * (`youtube.com/watch?v=…`), an email address, an IP address, or an id that joins letters or digits to a digit through
 * `_`, `:` or `/` (`cus_Q8x2`, `session:4711`, `2026/11/`). A product or format that holds a digit (`S3`, `Neo4j`,
 * `MP4`, `2027`) is none of these.
 */
function isValue(word: string): boolean {
  if (LINK.test(word) || EMAIL.test(word) || IP.test(word)) return true;
  const slash = word.indexOf('/');
  if (slash > 0 && HOST.test(word.slice(0, slash))) return true;
  return /[_:/]/.test(word) && /\d/.test(word);
}

/** The request without the values it passes, spaces closed up; the request itself when nothing else is left. */
export function withoutArguments(request: string): string {
  const unquoted = request.replace(QUOTED, ' ');
  const spoken = contentWordCount(unquoted, PACKAGING) >= MIN_WORDS_BESIDE_QUOTES ? unquoted : request;
  const words = spoken.replace(PICTURED, '$1').replace(SPANS, ' ').split(/\s+/);
  const kept: string[] = [];
  for (const word of words) {
    let end = word.length;
    while (end > 0 && TRAILING.has(word[end - 1] as string)) end--;
    const bare = word.slice(0, end);
    // A capitalised city after the first word (a request may open on its topic: "Paris weather").
    const place = kept.length > 0 && /^\p{Lu}/u.test(bare) && CITY_WORDS.has(bare.toLowerCase());
    kept.push(isValue(bare) || place ? word.slice(end) : word);
  }
  const rest = kept
    .filter((w) => w !== '')
    .join(' ')
    .replace(/ (?=[,.;:!?])/g, '')
    .trim();
  return /\p{L}{2}/u.test(rest) ? rest : request;
}
