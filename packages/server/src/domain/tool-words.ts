/** `brave_web_search` -> `brave web search`: tool names read as words (searched, embedded and passed to the rerank). */
export const toolWords = (name: string): string => name.replace(/[_\-.]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
