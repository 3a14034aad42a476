/** What every screen returns: whether it holds the learning, and the names of the patterns that matched. */
export interface ScreenResult {
  flagged: boolean;
  /** Pattern names, each once, in the order of the screen's pattern list. */
  findings: string[];
}

/** A named pattern: the name is what a finding reports. */
export interface NamedPattern {
  name: string;
  re: RegExp;
}

/** Names of the patterns that match `text`, each once, in list order. Patterns must not be global (no `g`). */
export function matchingNames(text: string, patterns: readonly NamedPattern[]): string[] {
  const out: string[] = [];
  for (const p of patterns) if (!out.includes(p.name) && p.re.test(text)) out.push(p.name);
  return out;
}
