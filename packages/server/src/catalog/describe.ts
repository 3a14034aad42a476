// Descriptions for MCP servers whose sources say nothing of what they do: an empty description, or one that only
// gives the server's name back ("Official ClickHouse MCP Server"). Such a record cannot be found by meaning, so
// it is described from what the sources do hold: the product's name, what its category says, Docker's topic tags
// and its tools. Pure: no I/O.
import type { SkillTool } from '@axle/sdk';
import { toolWords } from '../domain/tool-words.js';
import type { Category } from './mapping.js';

/** Words that only say a thing is an MCP server (or how it is built), never what it does. */
const MCP_WORDS: ReadonlySet<string> = new Set(
  (
    'mcp mcps server servers model context protocol modelcontextprotocol implementation implementations official ' +
    'community simple integration connector provider bridge api apis sdk client plugin ' +
    'python py go golang typescript ts js node nodejs rust java ai s'
  ).split(' '),
);
/** Words that join others: dropped at the ends of a product name, kept inside ("Billing and Cost Management"). */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  'a an the for of with to and on in based by is this my our your its'.split(' '),
);
const BOILERPLATE: ReadonlySet<string> = new Set([...MCP_WORDS, ...FUNCTION_WORDS]);

const words = (text: string): string[] =>
  text
    .replace(/https?:\/\/\S+/g, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');

/** Name words: `mcp-snowflake-server` -> mcp, snowflake, server; `ynabmcpserver` -> ynab too (the glued form). */
function nameWords(names: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const n of names) {
    for (const w of words(n.replace(/([a-z])([A-Z])/g, '$1 $2'))) {
      out.add(w);
      const bare = w.replace(/(mcp|server)+/g, '');
      if (bare !== '') out.add(bare);
    }
  }
  return out;
}

/**
 * Whether `description` says anything beyond the server's names (title, repository, owner, package): once the
 * words of those names and the words every MCP server carries are taken out, is any word left?
 */
export function restatesName(description: string, names: readonly string[]): boolean {
  const known = nameWords(names);
  return words(description).every((w) => BOILERPLATE.has(w) || known.has(w));
}

/**
 * The product a server is for, as its sources spell it: the restated description less its boilerplate
 * ("Official ClickHouse MCP Server" -> ClickHouse), else the title, else the repository name less `mcp`/`server`
 * (`mcp-snowflake-server` -> snowflake), else the owner's (`integration-app/mcp-server` -> integration app).
 */
export function productName(description: string, title: string, repo: string, owner = ''): string {
  const key = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const kept = description
    .replace(/https?:\/\/\S+/g, ' ')
    .split(/[\s()_-]+/)
    .map((w) => w.replace(/['’]s$/, ''))
    .filter((w) => key(w) !== '' && !MCP_WORDS.has(key(w)));
  while (kept.length > 0 && FUNCTION_WORDS.has(key(kept[0]!))) kept.shift();
  while (kept.length > 0 && FUNCTION_WORDS.has(key(kept.at(-1)!))) kept.pop();
  const fromDescription = kept.join(' ').replace(/[^\p{L}\p{N}]+$/u, '');
  if (fromDescription !== '') return fromDescription;
  const cleanTitle = title.replace(/\s*\((archived|reference)\)\s*$/i, '').trim();
  if (cleanTitle !== '') return cleanTitle;
  const bare = (name: string) =>
    words(name.replace(/mcp(?=server)|(?<=\w)mcp$/gi, ' '))
      .filter((w) => !BOILERPLATE.has(w))
      .join(' ');
  return bare(repo) || words(owner).join(' ') || repo;
}

/** What each category holds, in plain words: said of a server once a rule has placed it. */
export const CATEGORY_GLOSS: Readonly<Record<Category, string>> = {
  'storage-state': 'storage: databases, files, notes and tasks',
  'payment-financial': 'payments and finance',
  monitoring: 'monitoring: logs, metrics, alerts and security',
  communication: 'communication: messages, e-mail and calendars',
  'web-interaction': 'the web: search, browsing and scraping',
  'content-generation': 'content: images, audio, video and design',
  'code-execution': 'developer tooling: running, building and deploying code',
  'data-processing': 'data look-up and processing',
};

/** Tools named in a description at most; the tool list itself holds them all. */
const MAX_TOOLS_NAMED = 8;

export interface DescriptionFacts {
  product: string;
  /** The category a rule placed the server in; absent when nothing placed it (the default). */
  category?: Category;
  /** Docker's tags that say something (not generic, not the server's own name). */
  topics: readonly string[];
  tools: readonly SkillTool[];
}

/** "ClickHouse MCP server for storage: databases, files, notes and tasks. Topics: …. Tools: list tables, …." */
export function synthesizeDescription(f: DescriptionFacts): string {
  const head = `${f.product} MCP server${f.category ? ` for ${CATEGORY_GLOSS[f.category]}` : ''}.`;
  const topics = f.topics.length > 0 ? ` Topics: ${f.topics.join(', ')}.` : '';
  const named = f.tools.slice(0, MAX_TOOLS_NAMED).map((t) => toolWords(t.name).toLowerCase());
  const more = f.tools.length > MAX_TOOLS_NAMED ? ', …' : '';
  const tools = named.length > 0 ? ` Tools: ${named.join(', ')}${more}.` : '';
  return `${head}${topics}${tools}`;
}
