import {
  applyEdits,
  findNodeAtLocation,
  type FormattingOptions,
  getNodeValue,
  type JSONPath,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
import { type EditOutcome, lineOf } from './edit.js';

/** Indentation and line ends as the file already uses them, so an edit blends in. */
export function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)["'/}\]]/m.exec(text)?.[1];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

export type Parsed = { ok: true; root: Node | undefined } | { ok: false; reason: string };

/** Parses JSON with comments and trailing commas; an empty file is an empty object. */
export function parseJsonc(text: string): Parsed {
  if (text.trim() === '') return { ok: true, root: undefined };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0]!;
    return { ok: false, reason: `${printParseErrorCode(e.error)} at line ${lineOf(text, e.offset)}` };
  }
  if (root?.type !== 'object') return { ok: false, reason: 'the top level is not a JSON object' };
  return { ok: true, root };
}

export function valueAt(root: Node | undefined, path: JSONPath): unknown {
  const node = root && findNodeAtLocation(root, path);
  return node ? getNodeValue(node) : undefined;
}

export function nodeAt(root: Node | undefined, path: JSONPath): Node | undefined {
  return root && findNodeAtLocation(root, path);
}

/**
 * One jsonc-parser modification applied to the text; comments and everything else stay as they were.
 * A new property goes first in its object: jsonc-parser formats the lines an edit touches, and an
 * insertion after the last property would reformat that property's line too.
 */
export function setAt(text: string, path: JSONPath, value: unknown, isArrayInsertion = false): string {
  const base = text.trim() === '' ? '{}' : text;
  const edits = modify(base, path, value, {
    formattingOptions: formattingOf(base),
    isArrayInsertion,
    getInsertionIndex: () => 0,
  });
  const out = applyEdits(base, edits);
  return text.trim() === '' && !out.endsWith('\n') ? `${out}\n` : out;
}

/**
 * The first key of `path` that appears more than once in its object, as a dotted path. jsonc-parser edits the first
 * of duplicate keys while the clients (JSON.parse) read the last: an entry written there would never be seen.
 */
export function duplicateOnPath(root: Node | undefined, path: string[]): string | undefined {
  let node = root;
  for (let depth = 0; depth < path.length && node?.type === 'object'; depth++) {
    const props = (node.children ?? []).filter((p) => p.children?.[0]?.value === path[depth]);
    if (props.length > 1) return path.slice(0, depth + 1).join('.');
    node = props[0]?.children?.[1];
  }
  return undefined;
}

/**
 * Puts `value` at `container` + `name` (creating the container objects as needed) unless an equal
 * value is already there. A container that exists but is not an object is a conflict.
 */
export function upsertJsonc(
  text: string | undefined,
  container: string[],
  name: string,
  value: unknown,
  same: (a: unknown) => boolean,
): EditOutcome {
  const source = text ?? '';
  const parsed = parseJsonc(source);
  if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
  const twice = duplicateOnPath(parsed.root, [...container, name]);
  if (twice) return { kind: 'conflict', reason: `"${twice}" appears more than once` };
  for (let depth = 1; depth <= container.length; depth++) {
    const node = nodeAt(parsed.root, container.slice(0, depth));
    if (node && node.type !== 'object')
      return { kind: 'conflict', reason: `"${container.slice(0, depth).join('.')}" is not an object` };
  }
  if (same(valueAt(parsed.root, [...container, name]))) return { kind: 'unchanged' };
  return { kind: 'changed', text: setAt(source, [...container, name], value) };
}

/**
 * Deletes the property or array element at `path` with the separator and line break that came with it,
 * and nothing else: comments and the formatting of its neighbours stay byte for byte.
 */
export function deleteAt(text: string, path: JSONPath): string {
  const parsed = parseJsonc(text);
  const value = parsed.ok ? nodeAt(parsed.root, path) : undefined;
  if (!value) return text;
  const target = value.parent?.type === 'property' ? value.parent : value;
  let start = target.offset;
  let end = target.offset + target.length;
  const space = (c: string | undefined) => c !== undefined && /\s/.test(c);
  let after = end;
  while (space(text[after])) after++;
  if (text[after] === ',') {
    end = after + 1;
    while (start > 0 && space(text[start - 1])) start--;
  } else {
    let before = start;
    while (before > 0 && space(text[before - 1])) before--;
    if (text[before - 1] === ',') start = before - 1;
    else while (start > 0 && space(text[start - 1])) start--;
  }
  return text.slice(0, start) + text.slice(end);
}

/** Removes `container` + `name` when `ours` says the value there is Axle's. */
export function removeJsonc(
  text: string,
  container: string[],
  name: string,
  ours: (v: unknown) => boolean,
): EditOutcome {
  const parsed = parseJsonc(text);
  if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
  const twice = duplicateOnPath(parsed.root, [...container, name]);
  if (twice) return { kind: 'conflict', reason: `"${twice}" appears more than once` };
  const current = valueAt(parsed.root, [...container, name]);
  if (current === undefined) return { kind: 'unchanged' };
  if (!ours(current))
    return { kind: 'conflict', reason: `"${[...container, name].join('.')}" was not written by axle setup` };
  return { kind: 'changed', text: deleteAt(text, [...container, name]) };
}

/** The parsed value of JSON-with-comments text, for comparing two versions of a file. */
export function jsoncValue(text: string): unknown {
  const parsed = parseJsonc(text);
  return parsed.ok ? (parsed.root ? getNodeValue(parsed.root) : {}) : undefined;
}
