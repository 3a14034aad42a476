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
 * Numbers the persons and addresses of one or more texts: `[PERSON_1]`, `[ADDRESS_2]`, the same number for the same
 * value (case and spacing aside), and a lone surname or first name takes the number of the one full name that holds
 * it ("Bonifacy Kaczmarek … Kaczmarek" are both `[PERSON_1]`). Pass one numbering to `scrub` for each field of a
 * draft, so a name keeps its number from the title to the body.
 */
export class PlaceholderNumbering {
  private readonly numbers = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  /** For each word of a full name seen so far, the full names that hold it. */
  private readonly fullNames = new Map<string, Set<string>>();

  /** The placeholder for each of `merged` (findings of `text`, merged, in text order), by index. */
  placeholders(text: string, merged: readonly Finding[]): string[] {
    for (const f of merged) {
      if (f.type !== 'person') continue;
      const k = key(text.slice(f.start, f.end));
      if (!k.includes(' ')) continue;
      for (const part of k.split(' ')) {
        const holders = this.fullNames.get(part) ?? new Set<string>();
        holders.add(k);
        this.fullNames.set(part, holders);
      }
    }
    return merged.map((f) => {
      const prefix = NUMBERED[f.type];
      if (!prefix) return `[REDACTED:${f.type}]`;
      let value = key(text.slice(f.start, f.end));
      const holders = f.type === 'person' && !value.includes(' ') ? this.fullNames.get(value) : undefined;
      if (holders?.size === 1) value = [...holders][0];
      const k = `${f.type}:${value}`;
      let n = this.numbers.get(k);
      if (n === undefined) {
        n = (this.counts.get(f.type) ?? 0) + 1;
        this.counts.set(f.type, n);
        this.numbers.set(k, n);
      }
      return `[${prefix}_${n}]`;
    });
  }
}
