import fs from 'node:fs';
import type { LabelledItem } from '../src/domain/screens/index.js';

/** A labelled screen corpus from test/corpora/screens. */
export function loadScreenCorpus(name: string): LabelledItem[] {
  const url = new URL(`./corpora/screens/${name}.json`, import.meta.url);
  return (JSON.parse(fs.readFileSync(url, 'utf8')) as { items: LabelledItem[] }).items;
}
