import JSON5 from 'json5';
import { type EditOutcome, sameJson } from './edit.js';

/** Axle's block, with the line break and indentation setup put before it, so removal is byte-exact. */
const BLOCK = /\n[ \t]*\/\* axle:begin[\s\S]*?\/\* axle:end \*\//;
const BEGIN = '/* axle:begin (written by `axle setup`; `axle setup --undo` removes it) */';
const END = '/* axle:end */';

/**
 * Offsets of the `{` that opens each object reachable through object keys, by key path. A small
 * JSON5 walk (comments, both quote styles, unquoted keys); the text has already passed JSON5.parse.
 */
function objectOpenings(s: string): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  const ws = () => {
    for (;;) {
      if (/\s|\uFEFF/.test(s[i] ?? '')) i++;
      else if (s.startsWith('//', i)) i = s.indexOf('\n', i) === -1 ? s.length : s.indexOf('\n', i);
      else if (s.startsWith('/*', i)) i = s.indexOf('*/', i) + 2;
      else return;
    }
  };
  const string = (): string => {
    const q = s[i];
    const start = i++;
    while (i < s.length && s[i] !== q) i += s[i] === '\\' ? 2 : 1;
    i++;
    return JSON5.parse(s.slice(start, i)) as string;
  };
  const bare = (): string => {
    const start = i;
    while (i < s.length && !/[\s,:\]}/]/.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  const value = (path: string[] | null): void => {
    ws();
    const c = s[i];
    if (c === '{') {
      if (path) out.set(path.join('\u0000'), i);
      i++;
      for (;;) {
        ws();
        if (s[i] === '}') return void i++;
        const key = s[i] === '"' || s[i] === "'" ? string() : bare();
        ws();
        i++; // ':'
        value(path ? [...path, key] : null);
        ws();
        if (s[i] === ',') i++;
      }
    }
    if (c === '[') {
      i++;
      for (;;) {
        ws();
        if (s[i] === ']') return void i++;
        value(null);
        ws();
        if (s[i] === ',') i++;
      }
    }
    if (c === '"' || c === "'") return void string();
    bare();
  };
  value([]);
  return out;
}

function parse5(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON5.parse(text) };
  } catch (err) {
    const e = err as { lineNumber?: number };
    return { ok: false, reason: `invalid JSON5${e.lineNumber ? ` at line ${e.lineNumber}` : ''}` };
  }
}

function at(value: unknown, path: string[]): unknown {
  let v = value;
  for (const k of path)
    v = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The entry wrapped in whatever objects of `path` are missing, indented to sit at `indent`. */
function render(missing: string[], name: string, value: unknown, indent: string, unit: string): string {
  const [key, ...inner] = [...missing, name];
  let body: unknown = value;
  for (const k of inner.reverse()) body = { [k]: body };
  const json = JSON.stringify(body, null, unit).replace(/\n/g, `\n${indent}`);
  return `\n${indent}${BEGIN}\n${indent}${JSON.stringify(key)}: ${json},\n${indent}${END}`;
}

/**
 * Adds or refreshes Axle's entry at `container` + `name` in a JSON5 file as one marked block placed
 * just inside the deepest object of the path that exists; every other byte of the file stays as it was.
 */
export function upsertJson5(text: string | undefined, container: string[], name: string, value: unknown): EditOutcome {
  const source = text === undefined || text.trim() === '' ? '{\n}\n' : text;
  const parsed = parse5(source);
  if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
  if (!parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value))
    return { kind: 'corrupt', reason: 'the top level is not an object' };
  const existing = BLOCK.exec(source);
  const current = at(parsed.value, [...container, name]);
  if (existing) {
    if (sameJson(current, value)) return { kind: 'unchanged' };
  } else if (current !== undefined) {
    return { kind: 'conflict', reason: `"${[...container, name].join('.')}" exists and was not written by axle setup` };
  }
  // Without the old block, find where the new one goes.
  const base = existing ? source.slice(0, existing.index) + source.slice(existing.index + existing[0].length) : source;
  const openings = objectOpenings(base);
  let depth = container.length;
  while (depth > 0 && !openings.has(container.slice(0, depth).join('\u0000'))) depth--;
  for (let d = 1; d <= depth; d++) {
    const v = at(parsed.value, container.slice(0, d));
    if (!v || typeof v !== 'object' || Array.isArray(v))
      return { kind: 'conflict', reason: `"${container.slice(0, d).join('.')}" is not an object` };
  }
  const open = openings.get(container.slice(0, depth).join('\u0000'))!;
  const unit = /\n([ \t]+)\S/.exec(base)?.[1]?.startsWith('\t') ? '\t' : '  ';
  const indent = /^\n([ \t]*)\S/.exec(base.slice(open + 1))?.[1] ?? unit.repeat(depth + 1);
  const next =
    base.slice(0, open + 1) + render(container.slice(depth), name, value, indent, unit) + base.slice(open + 1);
  const check = parse5(next);
  if (!check.ok || !sameJson(at(check.value, [...container, name]), value)) {
    return { kind: 'conflict', reason: 'the entry could not be placed without changing other content' };
  }
  return { kind: 'changed', text: next };
}

/** Removes Axle's marked block, restoring the file byte for byte. */
export function removeJson5(text: string): EditOutcome {
  const parsed = parse5(text);
  if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
  const existing = BLOCK.exec(text);
  if (!existing) return { kind: 'unchanged' };
  return { kind: 'changed', text: text.slice(0, existing.index) + text.slice(existing.index + existing[0].length) };
}

export function readJson5(text: string, path: string[]): unknown {
  const parsed = parse5(text);
  return parsed.ok ? at(parsed.value, path) : undefined;
}
