import { z } from './zod.js';

// Text people (and agents) are shown: what comes in is normalised once, at the edge, so nothing stored can hide or
// reorder what the rest of it says, and minimum lengths count what a reader sees.

/**
 * Removed from every display text: control characters (C0 but tab and line feed, DEL, C1), the bidirectional
 * formatting characters (marks, embeddings, overrides, isolates), and invisible characters with no legitimate use
 * in such text (zero-width space, word joiner and invisible operators, BOM, soft hyphen, Mongolian vowel separator,
 * Hangul fillers, Khmer inherent vowels, the combining grapheme joiner, tag characters). The zero-width (non-)joiner
 * stays: emoji sequences and several scripts need it.
 */
const HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it removes
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0]|\u034f|\u17b4|\u17b5|[\u{e0000}-\u{e007f}]/gu;

/** What a reader sees as a character: not whitespace, a control or format character, a non-spacing mark or a filler. */
const VISIBLE = /[^\s\p{Cc}\p{Cf}\p{Mn}\p{Me}\u115f\u1160\u2800\u3164\uffa0]/gu;

/**
 * `text` normalised for display: NFC, line breaks as `\n`, hidden characters (above) removed. `singleLine` also
 * turns every run of whitespace into one space (names, labels).
 */
export function normalizeDisplayText(text: string, { singleLine = false } = {}): string {
  const clean = text.normalize('NFC').replace(/\r\n?/g, '\n').replace(HIDDEN, '');
  return singleLine ? clean.replace(/\s+/g, ' ') : clean;
}

/** Characters a reader sees in `text` (code points that are not whitespace, controls, format characters or marks). */
export function visibleLength(text: string): number {
  return text.match(VISIBLE)?.length ?? 0;
}

/**
 * Display text, normalised on the way in (normalizeDisplayText: control, bidirectional-formatting and invisible
 * characters removed) and trimmed; at least `min` visible characters (invisible ones, whitespace and marks do not
 * count), at most `max` characters.
 */
export const displayString = (min: number, max: number, name: string, { singleLine = true } = {}) => {
  const tooShort = `${name} must be at least ${min} visible characters (whitespace, control and invisible characters do not count)`;
  return z
    .string()
    .overwrite((s) => normalizeDisplayText(s, { singleLine }))
    .trim()
    .min(min, tooShort)
    .max(max, `${name} must be at most ${max} characters`)
    .refine((s) => s.length < min || visibleLength(s) >= min, tooShort);
};
