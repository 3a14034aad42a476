// The operation a request asks for and the one a tool's name performs: in a catalog of single tools, the tools of one
// product share every word but the verb (`create_group`, `update_group`, `delete_group`), so a request's words and
// its sentence vector sit as close to the wrong operation as to the right one. Pure.
import { textWords } from './query-expansion.js';
import { toolWords } from './tool-words.js';

export type Operation = 'create' | 'read' | 'update' | 'delete' | 'activate' | 'deactivate' | 'send';

/** Words and phrases a request says an operation with (the first one in the request decides), comma-separated. */
const REQUEST_VERBS: ReadonlyArray<readonly [Operation, string]> = [
  [
    'delete',
    'delete, remove, discard, revoke, drop, erase, purge, get rid of, take off, unassign, uninstall, wipe, clear out, deregister',
  ],
  [
    'create',
    'create, add, make, set up, register, generate, insert, upload, start a new, kick off, put, install, leave a, write a',
  ],
  [
    'update',
    'update, change, edit, rename, modify, replace, raise, mark, overwrite, tweak, adjust, move, switch, upgrade, set, fix',
  ],
  [
    'read',
    'show, list, get, what, which, find, look up, see, fetch, retrieve, describe, who, where, when, how many, how much, is there, are there, does, view, display, check, give me, tell me, pull up, grab, read, search, select, inspect',
  ],
  ['activate', 'activate, enable, turn on'],
  ['deactivate', 'deactivate, disable, turn off'],
  ['send', 'send, email'],
];

/** Verbs a tool's name starts with (after at most one product prefix: `zpa_delete_...`), comma-separated. */
const NAME_VERB_LISTS: ReadonlyArray<readonly [Operation, string]> = [
  ['create', 'create, add, insert, new, upload, generate, install, append, post'],
  ['read', 'get, list, search, find, fetch, retrieve, read, describe, show, lookup, query, view, count, check'],
  ['update', 'update, replace, modify, change, edit, set, upsert, rename, upgrade, patch'],
  ['delete', 'delete, remove, uninstall, unassign, revoke'],
  ['activate', 'activate, enable'],
  ['deactivate', 'deactivate, disable'],
  ['send', 'send'],
];
const NAME_VERBS: ReadonlyMap<string, Operation> = new Map(
  NAME_VERB_LISTS.flatMap(([op, words]) => words.split(', ').map((w) => [w, op] as const)),
);

const PHRASES: ReadonlyArray<readonly [readonly string[], Operation]> = REQUEST_VERBS.flatMap(([op, phrases]) =>
  phrases.split(', ').map((p) => [p.split(' '), op] as const),
);

/** The operation the request names first (`get rid of` -> delete, `which` -> read), or undefined when it names none. */
export function requestOperation(text: string): Operation | undefined {
  const words = textWords(text);
  for (let i = 0; i < words.length; i++)
    for (const [phrase, op] of PHRASES) if (phrase.every((w, j) => words[i + j] === w)) return op;
  return undefined;
}

/** A tool's name: one identifier starting in lower case (`delete_group`, `sendMessage`, `list-gds-procedures`). */
const TOOL_NAME = /^[a-z][A-Za-z0-9_-]*$/;

/**
 * The operation a tool's name performs: its first word, or its second after a product prefix; undefined for none,
 * and for a display name (`New York Times`, `Remove.bg`, `GetOTP`), which names a product, not an operation.
 */
export function nameOperation(name: string): Operation | undefined {
  if (!TOOL_NAME.test(name)) return undefined;
  const words = textWords(toolWords(name));
  return NAME_VERBS.get(words[0] ?? '') ?? NAME_VERBS.get(words[1] ?? '');
}
