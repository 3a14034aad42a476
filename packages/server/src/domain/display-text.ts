/**
 * Control characters (C0, DEL, C1) and the bidirectional formatting characters (marks, embeddings,
 * overrides, isolates): in text shown to a person they can hide or reorder what the rest says.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it removes
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` safe to show on a page: hidden characters removed, spaces collapsed, at most `max` code points. */
export function displayText(text: string, max: number): string {
  const visible = text.replace(HIDDEN, '').replace(/\s+/g, ' ').trim();
  return [...visible].slice(0, max).join('').trim();
}
