// The values a tool-use request passes to the operation it asks for: a title in quotes, a link, an email address, an
// id such as `cus_Q8x2` or `session:4711`, a phone number, an IP address, a JSON object. They say which item, not which
// tool ("open a pull request titled \"Fix login redirect\"" matched sign-in services on `login`). Pure.

/**
 * One alternative per kind of value, tried left to right: a `{…}` object, a quoted string, a link with a scheme or
 * `www.`, an email address, a host with a path (`youtube.com/watch?v=…`), an IP address, a phone number of 7 or more
 * digits, and a word that joins letters or digits to a digit through `_`, `:` or `/` (`cus_Q8x2`, `session:4711`,
 * `2026/11/`). A product or format that holds a digit (`S3`, `Neo4j`, `MP4`, `2027`) is none of these.
 */
const ARGUMENT = new RegExp(
  [
    String.raw`\{[^{}]{0,200}\}`,
    String.raw`"[^"]{1,80}"`,
    String.raw`“[^”]{1,80}”`,
    String.raw`\b(?:https?:\/\/|www\.)\S+`,
    String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,
    String.raw`\b[\w-]+(?:\.[\w-]+)+\/\S*`,
    String.raw`\b\d{1,3}(?:\.\d{1,3}){3}\b`,
    String.raw`\+?\d(?:[\s.-]?\d){6,}`,
    String.raw`\b\w*(?:[_:/]\w*)*[_:/]\w*\d\w*(?:[_:/]\w*)*`,
  ].join('|'),
  'gu',
);

/** The request without the values it passes (ARGUMENT), spaces closed up; the request itself when nothing else is left. */
export function withoutArguments(request: string): string {
  const rest = request
    .replace(ARGUMENT, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return /[\p{L}]{2}/u.test(rest) ? rest : request;
}
