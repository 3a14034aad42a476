/** What the skills registry asks of the knowledge marketplace: the `knowledge_hint` of POST /discover. */
export interface KnowledgeHints {
  /** Null while no approved learnings exist; otherwise a pointer to POST /knowledge for the same query. */
  hintFor(query: string): Promise<string | null>;
}

/** Points to the knowledge marketplace for the same query. */
export const knowledgeHint = (query: string): string =>
  `Other agents have shared operational learnings; search them free with POST /knowledge {"query": ${JSON.stringify(query)}}.`;
