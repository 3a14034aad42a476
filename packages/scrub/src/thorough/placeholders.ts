import type { Finding } from '../types.js';

/** The numbered placeholders' names by finding type; other types keep `[REDACTED:<type>]`. */
const NUMBERED: Readonly<Record<string, string>> = { person: 'PERSON', street_address: 'ADDRESS' };

const key = (value: string): string =>
  value
    .replace(/^@/, '')
    .replace(/[.,]+$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();

/**
 * Placeholders for one text's merged findings, in text order: `[PERSON_1]`, `[ADDRESS_2]`, the same number for the
 * same value (case and spacing aside), and a lone surname or first name takes the number of the one full name in the
 * text that holds it ("Bonifacy Kaczmarek … Kaczmarek" are both `[PERSON_1]`). Returns the placeholder for each
 * finding, by its index.
 */
export function numberedPlaceholders(text: string, merged: readonly Finding[]): string[] {
  const fullNames = new Map<string, string[]>();
  for (const f of merged) {
    if (f.type !== 'person') continue;
    const k = key(text.slice(f.start, f.end));
    for (const part of k.split(' ')) if (k.includes(' ')) fullNames.set(part, [...(fullNames.get(part) ?? []), k]);
  }
  const numbers = new Map<string, number>();
  const counts = new Map<string, number>();
  return merged.map((f) => {
    const prefix = NUMBERED[f.type];
    if (!prefix) return `[REDACTED:${f.type}]`;
    let k = `${f.type}:${key(text.slice(f.start, f.end))}`;
    const holders = f.type === 'person' && !k.includes(' ') ? new Set(fullNames.get(k.slice(7))) : undefined;
    if (holders?.size === 1) k = `person:${[...holders][0]}`;
    let n = numbers.get(k);
    if (n === undefined) {
      n = (counts.get(f.type) ?? 0) + 1;
      counts.set(f.type, n);
      numbers.set(k, n);
    }
    return `[${prefix}_${n}]`;
  });
}
