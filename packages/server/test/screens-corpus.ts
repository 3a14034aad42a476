import fs from 'node:fs';
import type { LabelledItem } from '../src/domain/screens/index.js';

/**
 * The tuned items of a labelled screen corpus from test/corpora/screens. Holdout items measure unseen text and
 * are only printed by `npm run eval`; asserting targets on them would turn them into tuning data.
 */
export function loadScreenCorpus(name: string): LabelledItem[] {
  const url = new URL(`./corpora/screens/${name}.json`, import.meta.url);
  return (JSON.parse(fs.readFileSync(url, 'utf8')) as { items: LabelledItem[] }).items.filter(
    (i) => i.split === undefined,
  );
}
