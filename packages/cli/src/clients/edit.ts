/** What an edit of a client's config file came to. */
export type EditOutcome =
  | { kind: 'changed'; text: string }
  | { kind: 'unchanged' }
  /** The file does not parse: it is reported and never written. */
  | { kind: 'corrupt'; reason: string }
  /** The file parses but holds something setup will not overwrite (an entry it did not write). */
  | { kind: 'conflict'; reason: string };

/** Key-order-insensitive equality of JSON values. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** 1-based line of an offset, for error messages. */
export const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;
