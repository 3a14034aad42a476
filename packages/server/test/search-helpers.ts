import { fileURLToPath } from 'node:url';

/** 16 skills across every category, both types and both pricing models: the search tests' catalog. */
export const SMALL_CATALOG = fileURLToPath(new URL('./fixtures/skills-small.json', import.meta.url));
