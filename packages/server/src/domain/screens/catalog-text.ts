// The screen over third-party catalog text (a synced registry server's name, title, description and install
// variable texts), which agents read in /discover and GET /skill. It is the injection screen without its off-task
// layer (a description is imperative by nature: "send messages", "run queries"), plus the tool-poisoning patterns
// in English and in other languages.
import { foldText } from '@axle/scrub';
import { screenInjection } from './injection.js';
import { matchingNames } from './result.js';
import { TOOL_POISONING_PATTERNS } from './tool-poisoning.js';
import { MULTILINGUAL_POISONING_PATTERNS } from './tool-poisoning-languages.js';

export interface CatalogScreening {
  held: boolean;
  /** Rule names, each once, in the order of the texts and then of the screens. */
  rules: string[];
}

/** Screens each text on its own (a rule anchored at a line start sees each field's start). */
export function screenCatalogText(texts: readonly string[]): CatalogScreening {
  const rules = new Set<string>();
  for (const text of texts) {
    if (text.trim() === '') continue;
    for (const r of screenInjection(text, { offTask: [] }).findings) rules.add(r);
    const folded = foldText(text).text;
    for (const r of matchingNames(folded, TOOL_POISONING_PATTERNS)) rules.add(r);
    for (const r of matchingNames(folded, MULTILINGUAL_POISONING_PATTERNS)) rules.add(r);
  }
  return { held: rules.size > 0, rules: [...rules] };
}
