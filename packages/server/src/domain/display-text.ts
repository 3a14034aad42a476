import { normalizeDisplayText } from '@axle/sdk';

/** `text` safe to show on a page: normalised (hidden characters removed, spaces collapsed), at most `max` code points. */
export function displayText(text: string, max: number): string {
  const visible = normalizeDisplayText(text, { singleLine: true }).trim();
  return [...visible].slice(0, max).join('').trim();
}
