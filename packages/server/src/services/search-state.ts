import type { SearchState as SearchStateSchema, z } from '@axle/sdk';

/** What /health reports about skill search: `{lexical, semantic}`. */
export type SearchState = z.infer<typeof SearchStateSchema>;
